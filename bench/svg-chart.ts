/**
 * The benchmarks' charts, as standalone SVG files without a dependency: small multiples (panels in a
 * grid) sharing one logarithmic x axis (dataset sizes, connection counts), each panel with its own y
 * axis, linear from 0 or logarithmic by decades (for series orders of magnitude apart, such as a bare
 * Hono route beside the service). A value that the axis cannot place (not finite, or not positive on a
 * log axis, e.g. a level where every request failed) is left out of its line rather than drawn as 0.
 * Used by bench/dataset-size.ts and bench/connection-scaling.ts.
 */

export interface ChartSeries {
  readonly name: string;
  /** One value per x of the chart, in the same order. */
  readonly values: readonly number[];
}

export interface ChartPanel {
  readonly title: string;
  readonly series: readonly ChartSeries[];
  /** `linear` (from 0, the default) or `log` (by decades). */
  readonly yScale?: 'linear' | 'log';
}

export interface SmallMultiples {
  /** The SVG's accessible title. */
  readonly title: string;
  /** The x values (positive), drawn on a log scale and labelled as numbers. */
  readonly x: readonly number[];
  readonly panels: readonly ChartPanel[];
  /** Panels per row (2 by default). */
  readonly columns?: number;
  /** Whether each point is labelled with its value (true by default; off for dense charts). */
  readonly pointLabels?: boolean;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const [WIDTH, HEIGHT, PAD, GAP] = [360, 220, 44, 20];
/** Rough width of one legend character at font-size 10, for spacing the legend entries. */
const LEGEND_CHAR_PX = 6;

/** Text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char] as string,
  );
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Where a panel's values go vertically: a fraction of the plot height (0 bottom, 1 top) or none. */
interface YAxis {
  place(value: number): number | undefined;
  /** Labels on the left edge: the value and its fraction of the height. */
  ticks: { label: string; at: number }[];
}

function linearAxis(values: readonly number[]): YAxis {
  const top = Math.max(...values.filter(Number.isFinite), 1) * 1.1;
  return {
    place: (value) => (Number.isFinite(value) ? value / top : undefined),
    ticks: [{ label: String(round(top, 1)), at: 1 }],
  };
}

function logAxis(values: readonly number[]): YAxis {
  const positive = values.filter((value) => Number.isFinite(value) && value > 0);
  const low = Math.floor(Math.log10(Math.min(...positive, 1)));
  const high = Math.max(Math.ceil(Math.log10(Math.max(...positive, 10))), low + 1);
  const ticks = [];
  for (let decade = low; decade <= high; decade += 1) {
    ticks.push({ label: (10 ** decade).toLocaleString('en'), at: (decade - low) / (high - low) });
  }
  return {
    place: (value) =>
      Number.isFinite(value) && value > 0 ? (Math.log10(value) - low) / (high - low) : undefined,
    ticks,
  };
}

function panelSvg(chart: SmallMultiples, panel: ChartPanel, index: number): string {
  const columns = chart.columns ?? 2;
  const ox = (index % columns) * (WIDTH + GAP);
  const oy = Math.floor(index / columns) * (HEIGHT + GAP);
  const xs = chart.x.map((value) => Math.log10(value));
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
  const axis = (panel.yScale === 'log' ? logAxis : linearAxis)(panel.series.flatMap((s) => s.values));
  const x = (value: number) => ox + PAD + ((value - xMin) / (xMax - xMin)) * (WIDTH - PAD - 16);
  const baseline = oy + HEIGHT - 30;
  const y = (fraction: number) => baseline - fraction * (HEIGHT - 60);

  let legendX = ox + PAD;
  const lines = panel.series.map((series, s) => {
    const color = COLORS[s % COLORS.length] as string;
    const points = series.values.flatMap((value, i) => {
      const fraction = axis.place(value);
      return fraction === undefined ? [] : [{ px: x(xs[i] as number), py: y(fraction), value }];
    });
    const polyline = `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map(({ px, py }) => `${round(px, 2)},${round(py, 2)}`).join(' ')}"/>`;
    const marks = points
      .map(({ px, py }) => `<circle cx="${round(px, 2)}" cy="${round(py, 2)}" r="2" fill="${color}"/>`)
      .join('');
    const labels =
      chart.pointLabels === false
        ? ''
        : points
            .map(
              ({ px, py, value }) =>
                `<text x="${round(px + 3, 2)}" y="${round(py - 4, 2)}" font-size="9">${value}</text>`,
            )
            .join('');
    const legend = `<text x="${legendX}" y="${oy + HEIGHT - 6}" font-size="10" fill="${color}">${escapeXml(series.name)}</text>`;
    legendX += series.name.length * LEGEND_CHAR_PX + 16;
    return `${polyline}${marks}${labels}${legend}`;
  });
  const xTicks = chart.x
    .map(
      (value, i) =>
        `<text x="${round(x(xs[i] as number) - 12, 2)}" y="${oy + HEIGHT - 18}" font-size="9">${value.toLocaleString('en')}</text>`,
    )
    .join('');
  const yTicks = axis.ticks
    .map(
      ({ label, at }) =>
        `<text x="${ox + 6}" y="${round(y(at) + 3, 2)}" font-size="9">${label}</text>` +
        (at > 0
          ? `<line x1="${ox + PAD}" y1="${round(y(at), 2)}" x2="${ox + WIDTH - 16}" y2="${round(y(at), 2)}" stroke="#eee"/>`
          : ''),
    )
    .join('');
  return `<g><rect x="${ox}" y="${oy}" width="${WIDTH}" height="${HEIGHT}" fill="#fff" stroke="#ccc"/><text x="${ox + 8}" y="${oy + 16}" font-size="12" font-weight="bold">${escapeXml(panel.title)}</text>${yTicks}<line x1="${ox + PAD}" y1="${baseline}" x2="${ox + WIDTH - 16}" y2="${baseline}" stroke="#999"/>${xTicks}${lines.join('')}</g>`;
}

/** The whole chart as an SVG document (ending with a newline). */
export function smallMultiplesSvg(chart: SmallMultiples): string {
  const columns = chart.columns ?? 2;
  const rows = Math.ceil(chart.panels.length / columns);
  const width = Math.min(columns, chart.panels.length) * (WIDTH + GAP) - GAP;
  const height = rows * (HEIGHT + GAP) - GAP;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" role="img"><title>${escapeXml(chart.title)}</title>${chart.panels.map((panel, index) => panelSvg(chart, panel, index)).join('')}</svg>\n`;
}
