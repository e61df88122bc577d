/**
 * Counts the DynamoDB calls a store's client sends, by phase of a benchmark, command name and the
 * kind of item addressed, with each call's start and end (so overlapping calls can be told from
 * sequential round trips). It is a middleware on the client (`DynamoClient.use`), added by the
 * benchmark or test only: production code is not changed to be measured.
 */
import type { DynamoTable } from '../shared/store/dynamodb/table.js';

/** Commands that only read; every other command counted is a write (or table administration). */
const READ_COMMANDS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'DescribeTable']);

export function isRead(command: string): boolean {
  return READ_COMMANDS.has(command);
}

export interface CallCount {
  command: string;
  /** apiKey, account, balance, rateWindow, ledger, accountKey or table (no key). */
  item: string;
  count: number;
  /** performance.now() of each call's start, for telling bursts apart. */
  startedAtMs: number[];
  /** [start, end] of each call, in start order. */
  spansMs: [number, number][];
}

export interface DynamoCallCounter {
  /** Calls started from now on are counted under `phase`. */
  setPhase(phase: string): void;
  counts(phase: string): CallCount[];
  /** Waits (at most `timeoutMs`) until no call is in flight, e.g. fire-and-forget writes. */
  drain(timeoutMs?: number): Promise<boolean>;
}

export function countDynamoCalls(store: DynamoTable): DynamoCallCounter {
  let phase = 'setup';
  let inFlight = 0;
  const byPhase = new Map<string, Map<string, CallCount>>();

  store.client.use(async (call, next) => {
    const command = call.operation;
    const item = itemKind(call.input as { Key?: unknown; Item?: unknown });
    const counts = byPhase.get(phase) ?? new Map<string, CallCount>();
    byPhase.set(phase, counts);
    const label = `${command} ${item}`;
    const entry = counts.get(label) ?? { command, item, count: 0, startedAtMs: [], spansMs: [] };
    const span: [number, number] = [performance.now(), Number.NaN];
    entry.count += 1;
    entry.startedAtMs.push(span[0]);
    entry.spansMs.push(span);
    counts.set(label, entry);
    inFlight += 1;
    try {
      return await next();
    } finally {
      inFlight -= 1;
      span[1] = performance.now();
    }
  });

  return {
    setPhase(next) {
      phase = next;
    },
    counts(name) {
      return [...(byPhase.get(name)?.values() ?? [])].map((entry) => ({
        ...entry,
        startedAtMs: [...entry.startedAtMs],
        spansMs: entry.spansMs.map(([start, end]) => [start, end] as [number, number]),
      }));
    },
    async drain(timeoutMs = 5_000) {
      const deadline = performance.now() + timeoutMs;
      while (inFlight > 0 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return inFlight === 0;
    },
  };
}

/** Sequential round trips: calls that overlap in time share one, a call after they all ended starts the next. */
export function sequentialRoundTrips(counts: readonly CallCount[]): number {
  const spans = counts.flatMap((count) => count.spansMs).sort((a, b) => a[0] - b[0]);
  let trips = 0;
  let openUntil = Number.NEGATIVE_INFINITY;
  for (const [start, end] of spans) {
    if (start >= openUntil) trips += 1;
    openUntil = Math.max(openUntil, end);
  }
  return trips;
}

/** Groups call start times into bursts: calls less than `gapMs` apart belong to one burst. */
export function bursts(startedAtMs: readonly number[], gapMs = 1_000): number[] {
  const sizes: number[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const at of [...startedAtMs].sort((a, b) => a - b)) {
    if (at - last > gapMs) sizes.push(0);
    sizes[sizes.length - 1] = (sizes[sizes.length - 1] ?? 0) + 1;
    last = at;
  }
  return sizes;
}

/** The kind of item a call addresses, from its (not yet marshalled) key or item. */
function itemKind(input: { Key?: unknown; Item?: unknown }): string {
  const key = (input.Key ?? input.Item) as { pk?: unknown; sk?: unknown } | undefined;
  if (!key || typeof key.pk !== 'string' || typeof key.sk !== 'string') return 'table';
  if (key.pk.startsWith('APIKEY#')) return 'apiKey';
  if (key.sk === 'ACCOUNT') return 'account';
  if (key.sk === 'BALANCE') return 'balance';
  if (key.sk.startsWith('LEDGER#')) return 'ledger';
  if (key.sk.startsWith('KEY#')) return 'accountKey';
  return 'other';
}
