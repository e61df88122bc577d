/**
 * `npm start` reads the dataset on reader threads: while broad dataset searches keep SQLite busy, an
 * unrelated cheap request (/healthz) is answered promptly, because no search runs on the event loop.
 * Measured through the real server over HTTP: the latency of health checks sent one after another
 * while several broad job searches (each tens of milliseconds of SQLite work) are always in flight.
 * In-thread, each health check waited behind whatever search the loop was running. The same holds for a
 * billed read of one profile by its key, which stays on the event loop (point-reads.ts): through the
 * reader threads it queued behind the searches the threads were busy with.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROAD_JOB_KEYWORD, buildBroadJobsDataset } from '../support/broad-jobs-dataset.js';
import { cleanUpProcesses, freshDataDir, type RunningServer, startServer } from '../support/processes.js';

/**
 * Jobs the broad keyword matches beyond the sample's: each search counts them all. Counting got
 * cheaper (the job_facets table, then its values kept in memory), so enough of them that one search
 * stays well above a cheap request.
 */
const EXTRA_JOBS = 40_000;
/** Broad searches kept in flight while the health checks run. */
const SEARCHES_IN_FLIGHT = 4;
const HEALTH_CHECKS = 40;
/**
 * The bounds, relative to the broad searches in flight during the same window (so the machine's load
 * at that moment weighs on both sides: a baseline measured alone before the window failed on a CI
 * machine that got busier meanwhile). With four searches queued on the reader threads, one of them
 * takes several searches' worth of time; a request that queued with them would take about as long.
 * Measured here: a health check about a twentieth of one, a billed profile lookup (its own store
 * writes, its read on the event loop) a twentieth to a seventh under extra CPU load, and 0.87 of
 * one with its read sent to the reader threads instead.
 */
const HEALTH_CHECK_SHARE_OF_SEARCH = 1 / 4;
const POINT_READ_SHARE_OF_SEARCH = 1 / 3;

let server: RunningServer;

const broadSearch = async () => {
  const started = performance.now();
  const response = await fetch(`${server.url}/api/v2/jobs/search/filters?keywords=${BROAD_JOB_KEYWORD}`, {
    headers: { 'x-api-key': server.demoKey },
  });
  const body = (await response.json()) as { data?: { matched?: number } };
  return { status: response.status, matched: body.data?.matched, ms: performance.now() - started };
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
};

beforeAll(async () => {
  const file = join(await freshDataDir(), 'broad-jobs.sqlite');
  buildBroadJobsDataset(file, EXTRA_JOBS);
  server = await startServer(await freshDataDir(), {
    DATASET: file,
    DEFAULT_RATE_LIMIT: '1000000',
    DEMO_ACCOUNT_CREDITS: '1000000',
  });
  // Every reader thread loaded and the file in SQLite's cache before anything is timed.
  await Promise.all(Array.from({ length: SEARCHES_IN_FLIGHT }, broadSearch));
});

afterAll(async () => {
  await server?.stop();
  await cleanUpProcesses();
});

describe('dataset reads on reader threads (npm start)', () => {
  it.each([
    ['/healthz', false, HEALTH_CHECK_SHARE_OF_SEARCH],
    // A read by one record's key runs on the event loop (point-reads.ts): it waits for no search.
    ['/v1/profiles/details/by-username?username=amelia-hartmann', true, POINT_READ_SHARE_OF_SEARCH],
  ])(
    'answers %s in milliseconds while broad dataset searches are always in flight',
    async (path, withKey, shareOfSearch) => {
      let searching = true;
      const searches: Awaited<ReturnType<typeof broadSearch>>[] = [];
      const load = Array.from({ length: SEARCHES_IN_FLIGHT }, async () => {
        while (searching) searches.push(await broadSearch());
      });
      await sleep(200);
      const answerMs: number[] = [];
      for (let i = 0; i < HEALTH_CHECKS; i += 1) {
        const started = performance.now();
        const response = await fetch(`${server.url}${path}`, {
          headers: withKey ? { Authorization: `Bearer ${server.demoKey}` } : {},
        });
        await response.arrayBuffer();
        answerMs.push(performance.now() - started);
        expect(response.status).toBe(200);
        await sleep(20);
      }
      searching = false;
      await Promise.all(load);

      for (const search of searches) {
        expect(search.status).toBe(200);
        expect(search.matched).toBeGreaterThanOrEqual(EXTRA_JOBS);
      }
      const figures = {
        answerP50: percentile(answerMs, 0.5),
        searchInFlightP50: percentile(
          searches.map((search) => search.ms),
          0.5,
        ),
      };
      expect(figures.answerP50, JSON.stringify(figures)).toBeLessThan(
        figures.searchInFlightP50 * shareOfSearch,
      );
    },
  );
});
