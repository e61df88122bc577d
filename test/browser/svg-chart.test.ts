/**
 * The benchmarks' SVG chart writer (bench/svg-chart.ts), read back by Chromium's XML parser: the
 * files in docs/ must be well-formed SVG whatever the series are called, with one line per series
 * and panel, log axes by decades, and values an axis cannot place left out rather than drawn.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmallMultiples, smallMultiplesSvg } from '../../bench/svg-chart.js';
import { type FixtureBrowser, startFixtureBrowser } from '../support/fixture-browser.js';

let fixture: FixtureBrowser;
let page: Page;

beforeAll(async () => {
  fixture = await startFixtureBrowser();
  page = await fixture.browser.newPage();
});

afterAll(async () => {
  await fixture?.close();
});

interface ParsedChart {
  /** The parser's error text, or null when the document is well-formed XML. */
  parserError: string | null;
  rootName: string;
  title: string;
  /** Per polyline: its stroke and its points as [x, y] pairs. */
  lines: { stroke: string; points: number[][] }[];
  texts: string[];
}

/** Parses the SVG as XML in Chromium, as an image viewer or a browser opening the file would. */
function parse(svg: string): Promise<ParsedChart> {
  return page.evaluate((source: string) => {
    const document = new DOMParser().parseFromString(source, 'image/svg+xml');
    const root = document.documentElement;
    return {
      parserError: document.querySelector('parsererror')?.textContent ?? null,
      rootName: `${root.namespaceURI} ${root.localName}`,
      title: root.querySelector('title')?.textContent ?? '',
      lines: [...root.querySelectorAll('polyline')].map((line) => ({
        stroke: line.getAttribute('stroke') ?? '',
        points: (line.getAttribute('points') ?? '')
          .split(' ')
          .filter((pair) => pair !== '')
          .map((pair) => pair.split(',').map(Number)),
      })),
      texts: [...root.querySelectorAll('text')].map((text) => text.textContent ?? ''),
    };
  }, svg);
}

const CONNECTIONS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

const scalingChart: SmallMultiples = {
  title: 'Throughput & p99 <by connections>',
  x: CONNECTIONS,
  pointLabels: false,
  panels: [
    {
      title: 'Throughput (req/s, log scale)',
      yScale: 'log',
      series: [
        { name: 'bare Hono <route>', values: CONNECTIONS.map((c) => 1_000 * Math.min(c, 16)) },
        { name: 'free check & "quotes"', values: CONNECTIONS.map((c) => 150 * Math.min(c, 8)) },
        { name: "billed lookup's", values: CONNECTIONS.map((c) => 80 * Math.min(c, 4)) },
      ],
    },
    {
      title: 'p99 latency (ms, log scale)',
      yScale: 'log',
      series: [
        { name: 'bare', values: CONNECTIONS.map((c) => c / 4) },
        { name: 'free', values: CONNECTIONS.map((c) => c * 10) },
      ],
    },
  ],
};

describe('smallMultiplesSvg', () => {
  it('writes well-formed SVG with every title and series name as given, markup characters included', async () => {
    const chart = await parse(smallMultiplesSvg(scalingChart));

    expect(chart.parserError).toBeNull();
    expect(chart.rootName).toBe('http://www.w3.org/2000/svg svg');
    expect(chart.title).toBe('Throughput & p99 <by connections>');
    expect(chart.texts).toEqual(
      expect.arrayContaining([
        'Throughput (req/s, log scale)',
        'bare Hono <route>',
        'free check & "quotes"',
        "billed lookup's",
        '256',
      ]),
    );
  });

  it('draws one line per series and panel, a point per x, every coordinate a finite number', async () => {
    const chart = await parse(smallMultiplesSvg(scalingChart));

    expect(chart.lines.map((line) => line.points.length)).toEqual([9, 9, 9, 9, 9]);
    expect(chart.lines.flatMap((line) => line.points.flat()).every(Number.isFinite)).toBe(true);
    // Each series of a panel has its own colour.
    expect(new Set(chart.lines.slice(0, 3).map((line) => line.stroke)).size).toBe(3);
  });

  it('spaces x log-wise and a log y axis by decades: each doubling and each tenfold step is one even step', async () => {
    const chart = await parse(
      smallMultiplesSvg({
        title: 'decades',
        x: [1, 2, 4],
        panels: [{ title: 'log', yScale: 'log', series: [{ name: 'tenfold', values: [10, 100, 1_000] }] }],
      }),
    );

    type Point = [number, number];
    const [[x1, y1], [x2, y2], [x3, y3]] = (chart.lines[0] as ParsedChart['lines'][number]).points as [
      Point,
      Point,
      Point,
    ];
    expect(x2 - x1).toBeCloseTo(x3 - x2, 1);
    expect(y1 - y2).toBeCloseTo(y2 - y3, 1);
    expect(chart.texts).toEqual(expect.arrayContaining(['10', '100', '1,000']));
  });

  it('leaves out of its line a value the axis cannot place (0 or NaN on a log axis, NaN on a linear one)', async () => {
    const chart = await parse(
      smallMultiplesSvg({
        title: 'gaps',
        x: [1, 10, 100, 1_000],
        panels: [
          {
            title: 'log',
            yScale: 'log',
            series: [{ name: 'failed level', values: [0, 50, Number.NaN, 70] }],
          },
          { title: 'linear', series: [{ name: 'missing', values: [0, Number.NaN, 3, 4] }] },
        ],
      }),
    );

    expect(chart.parserError).toBeNull();
    expect(chart.lines.map((line) => line.points.length)).toEqual([2, 3]);
    expect(chart.lines.flatMap((line) => line.points.flat()).every(Number.isFinite)).toBe(true);
  });
});
