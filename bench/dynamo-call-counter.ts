/**
 * Counts the DynamoDB calls a store's client sends, by phase of a benchmark, command name and the
 * kind of item addressed. It is a middleware on the client's stack, added by the benchmark only:
 * production code is not changed to be measured.
 */
import type { Store } from '../shared/store/dynamo.js';

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
}

export interface DynamoCallCounter {
  /** Calls started from now on are counted under `phase`. */
  setPhase(phase: string): void;
  counts(phase: string): CallCount[];
  /** Waits (at most `timeoutMs`) until no call is in flight, e.g. fire-and-forget writes. */
  drain(timeoutMs?: number): Promise<boolean>;
}

export function countDynamoCalls(store: Store): DynamoCallCounter {
  let phase = 'setup';
  let inFlight = 0;
  const byPhase = new Map<string, Map<string, CallCount>>();

  store.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const item = itemKind(args.input as { Key?: unknown; Item?: unknown });
      const counts = byPhase.get(phase) ?? new Map<string, CallCount>();
      byPhase.set(phase, counts);
      const label = `${command} ${item}`;
      const entry = counts.get(label) ?? { command, item, count: 0, startedAtMs: [] };
      entry.count += 1;
      entry.startedAtMs.push(performance.now());
      counts.set(label, entry);
      inFlight += 1;
      try {
        return await next(args);
      } finally {
        inFlight -= 1;
      }
    },
    { step: 'initialize', name: 'benchDynamoCallCounter' },
  );

  return {
    setPhase(next) {
      phase = next;
    },
    counts(name) {
      return [...(byPhase.get(name)?.values() ?? [])].map((entry) => ({
        ...entry,
        startedAtMs: [...entry.startedAtMs],
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
  if (key.sk.startsWith('RATE#')) return 'rateWindow';
  if (key.sk.startsWith('LEDGER#')) return 'ledger';
  if (key.sk.startsWith('KEY#')) return 'accountKey';
  return 'other';
}
