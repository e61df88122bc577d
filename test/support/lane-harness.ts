/**
 * What the API lane's tests share (api-lane.test.ts over node:http, lambda-api-lane.test.ts over API
 * Gateway events): one service whose log lines are kept, with an account's key and the throttle of
 * refused credentials at FAILURE_LIMIT, and what two answers to one request may differ in by nature.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../../shared/logger.js';
import { startHarness } from './harness.js';

/** Refused credentials from one address before it is throttled (AUTH_FAILURE_LIMIT). */
export const FAILURE_LIMIT = 10;

/** Response headers that differ between two answers to the same request: ids, times, counts left. */
export const VOLATILE_HEADERS: ReadonlySet<string> = new Set([
  'date',
  'x-request-id',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'x-credits-remaining',
]);

export async function startLaneHarness() {
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const harness = await startHarness({
    env: { AUTH_FAILURE_LIMIT: String(FAILURE_LIMIT) },
    logger: createLogger('info', sink),
  });
  const { apiKey } = await harness.provision({ credits: 1_000 });
  return {
    harness,
    apiKey,
    /** The log line of the request with this id, without what differs by nature. */
    logLineOf(requestId: string) {
      const line = logLines.find((entry) => entry.msg === 'request' && entry.requestId === requestId);
      if (!line) throw new Error(`no log line for ${requestId}`);
      const { time: _time, latencyMs, requestId: _id, ...rest } = line;
      return { ...rest, latencyMs: typeof latencyMs };
    },
  };
}

export type LaneHarness = Awaited<ReturnType<typeof startLaneHarness>>;
