/**
 * The customer's view of their own account, built from the stores: what GET /v1/account,
 * /v1/account/usage and /v1/account/ledger answer (and their v2 and MCP forms), and what the console
 * renders, so the two can never disagree. Plain functions of (dependencies, principal, query) → data.
 *
 * Everything here is a query on the ledger (DESIGN.md §8), never a second bookkeeping:
 *   - a ledger entry's `outcome` is `in_flight` while pending, `refunded` when its cost was given
 *     back, `free` when it cost nothing, `charged` otherwise; its `credits` are what that outcome
 *     moved (held, given back, kept; 0 when free);
 *   - usage rows sum the same entries by UTC day and operation, so Σ creditsCharged equals Σ
 *     credits of `charged` and `in_flight` entries over the range, and Σ creditsRefunded those of
 *     `refunded` ones.
 */

import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { DEFAULT_USAGE_DAYS, LEDGER_PAGE_SIZE, MAX_USAGE_DAYS } from '../../schemas/operations/account.js';
import type { Principal } from '../auth/authenticator.js';
import type {
  CreditLedger,
  LedgerEntry,
  LedgerPosition,
  Transport,
  UsageRow,
} from '../billing/credit-ledger.js';
import { type CapState, capStanding, isCapped } from '../billing/spend-caps.js';
import type { Clock } from '../clock.js';
import { InvalidRequestError } from '../errors.js';
import { windowAt, windowStanding } from '../limits/rolling-window.js';
import { CONNECTION_CALLER_PREFIX } from '../oauth/oauth-store.js';
import { type ApiFamily, type CursorIssuer, cursorOperation } from '../paging/cursors.js';

const DAY_MS = 86_400_000;

export interface AccountViewDependencies {
  ledger: CreditLedger;
  clock: Clock;
  cursors: CursorIssuer;
  /** The operations whose prices `data.prices` lists, with `PRICE_OVERRIDES` in force. */
  operations: readonly OperationDefinition[];
  priceOverrides: Readonly<Record<string, number>>;
}

/** Who reads: the account, and the key it called with (none for an OAuth caller on /mcp). */
export type AccountReader = Pick<Principal, 'account' | 'key'>;

export interface OperationPrice {
  operation: string;
  paths: string[];
  mcpTool: string | null;
  credits: number;
  settlement: string;
}

export interface AccountDetails {
  accountId: string;
  name: string;
  status: 'active' | 'suspended';
  credits: { balance: number };
  rateLimit: { limit: number; windowSeconds: number; remaining: number; resetSeconds: number };
  key: {
    keyId: string;
    label: string | null;
    scopes: string[] | null;
    expiresAt: string | null;
    createdAt: string;
    lastUsedAt: string | null;
    /** The key's spend caps with what is left of each this UTC day and month; null: no such cap. */
    caps: { daily: CapState | null; monthly: CapState | null };
  } | null;
  prices: OperationPrice[];
}

/** GET /v1/account: the rate limit as it stands, without counting this read (it is not a lookup). */
export async function accountDetails(
  deps: AccountViewDependencies,
  { account, key }: AccountReader,
): Promise<AccountDetails> {
  const [state, spend] = await Promise.all([
    deps.ledger.state(account.accountId),
    key && isCapped(key) ? deps.ledger.keySpend(account.accountId, key.keyId) : undefined,
  ]);
  const standing = windowStanding(windowAt(state.window, account.rateLimit, deps.clock.now()));
  return {
    accountId: account.accountId,
    name: account.name,
    status: account.status,
    credits: { balance: state.balance },
    rateLimit: {
      limit: account.rateLimit.limit,
      windowSeconds: account.rateLimit.windowSeconds,
      remaining: standing.remaining,
      resetSeconds: standing.resetSeconds,
    },
    key: key
      ? {
          keyId: key.keyId,
          label: key.label,
          scopes: key.scopes,
          expiresAt: key.expiresAt,
          createdAt: key.createdAt,
          lastUsedAt: key.lastUsedAt,
          caps: spend ? capStanding(key, spend) : { daily: null, monthly: null },
        }
      : null,
    prices: operationPrices(deps.operations, deps.priceOverrides),
  };
}

/** Every operation's price in this deployment, with its settlement rule in one line. */
export function operationPrices(
  operations: readonly OperationDefinition[],
  priceOverrides: Readonly<Record<string, number>>,
): OperationPrice[] {
  return operations.map((definition) => {
    const credits = Object.hasOwn(priceOverrides, definition.id)
      ? (priceOverrides[definition.id] as number)
      : definition.price;
    return {
      operation: definition.id,
      paths: definition.variants.map((variant) => variant.path),
      mcpTool: definition.mcpTool ?? null,
      credits,
      settlement: settlementRule(definition, credits),
    };
  });
}

function settlementRule(definition: OperationDefinition, credits: number): string {
  if (definition.metering === 'account') return 'Free; an account read, not counted against the rate limit.';
  if (credits === 0) return 'Free; counted against the rate limit.';
  const kept = definition.settlement.chargedErrors;
  return kept.length === 0
    ? 'Charged on a result; refunded on every error, 404 included.'
    : `Charged on a result and on ${kept.join(', ')}; refunded on every other error.`;
}

export interface UsageQueryInput {
  from?: string;
  to?: string;
}

export interface AccountUsage {
  from: string;
  to: string;
  rows: UsageRow[];
}

/**
 * GET /v1/account/usage: `from`..`to` (UTC days, both included), at most MAX_USAGE_DAYS; `to`
 * defaults to today and `from` to DEFAULT_USAGE_DAYS days up to `to`.
 */
export async function accountUsage(
  deps: AccountViewDependencies,
  { account }: AccountReader,
  query: UsageQueryInput,
): Promise<AccountUsage> {
  const today = Math.floor(deps.clock.now() / DAY_MS) * DAY_MS;
  const to = query.to === undefined ? today : dayOf(query.to);
  const from = query.from === undefined ? to - (DEFAULT_USAGE_DAYS - 1) * DAY_MS : dayOf(query.from);
  if (from > to) {
    throw InvalidRequestError.single(
      'from',
      'invalid_value',
      `from (${query.from}) is after to (${isoDay(to)}).`,
    );
  }
  const days = (to - from) / DAY_MS + 1;
  if (days > MAX_USAGE_DAYS) {
    throw InvalidRequestError.single(
      'to',
      'invalid_value',
      `from ${isoDay(from)} to ${isoDay(to)} spans ${days} days; at most ${MAX_USAGE_DAYS} per request.`,
    );
  }
  const rows = await deps.ledger.usage(account.accountId, {
    since: new Date(from).toISOString(),
    until: new Date(to + DAY_MS).toISOString(),
  });
  return { from: isoDay(from), to: isoDay(to), rows };
}

export interface LedgerQueryInput {
  requestId?: string;
  operation?: string;
  from?: string;
  to?: string;
  cursor?: string;
}

export interface PublicLedgerEntry {
  requestId: string;
  time: string;
  operation: string;
  transport: Transport | null;
  status: number | null;
  outcome: 'charged' | 'refunded' | 'free' | 'in_flight';
  credits: number;
  reason: string | null;
  /** The OAuth connection that made the call (console, Connections); null for an API key's call. */
  connectionId: string | null;
  /** Only on a batch item's entry: its batch and its index in it. */
  batchId?: string;
  itemIndex?: number;
}

export interface AccountLedgerPage {
  entries: PublicLedgerEntry[];
  paging: { hasMore: boolean; nextCursor: string | null };
}

/**
 * GET /v1/account/ledger: one page, newest first. A cursor carries where the page ended, bound to
 * the account and to the filters it was issued for (15 minutes, like every cursor).
 */
export async function accountLedger(
  deps: AccountViewDependencies,
  { account }: AccountReader,
  query: LedgerQueryInput,
  api: ApiFamily = 'v1',
): Promise<AccountLedgerPage> {
  const since = query.from === undefined ? undefined : boundOf(query.from, 'from');
  const until = query.to === undefined ? undefined : boundOf(query.to, 'to');
  if (since !== undefined && until !== undefined && since >= until) {
    throw InvalidRequestError.single(
      'from',
      'invalid_value',
      `from (${query.from}) is not before to (${query.to}).`,
    );
  }
  const binding = {
    operation: cursorOperation('account.ledger', api),
    accountId: account.accountId,
    // The filters the cursor continues: another filter with this cursor would skip or repeat entries.
    subject: JSON.stringify([query.requestId ?? null, query.operation ?? null, since ?? null, until ?? null]),
  };
  const after = query.cursor ? positionOf(await deps.cursors.resume(query.cursor, binding)) : undefined;
  // One more than a page tells whether another page follows.
  const entries = await deps.ledger.entries(account.accountId, {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(query.requestId === undefined ? {} : { requestId: query.requestId }),
    ...(query.operation === undefined ? {} : { operation: query.operation }),
    ...(after ? { after } : {}),
    limit: LEDGER_PAGE_SIZE + 1,
  });
  const page = entries.slice(0, LEDGER_PAGE_SIZE);
  const last = page.at(-1);
  const hasMore = entries.length > LEDGER_PAGE_SIZE && last !== undefined;
  const nextCursor = hasMore
    ? await deps.cursors.issue(
        binding,
        JSON.stringify({ createdAt: last.createdAt, requestId: last.requestId }),
      )
    : null;
  return { entries: page.map(publicEntry), paging: { hasMore, nextCursor } };
}

/** A ledger entry as the customer reads it (see the module header). */
export function publicEntry(entry: LedgerEntry): PublicLedgerEntry {
  const outcome =
    entry.status === 'pending'
      ? 'in_flight'
      : entry.status === 'refunded'
        ? 'refunded'
        : entry.cost === 0
          ? 'free'
          : 'charged';
  return {
    requestId: entry.requestId,
    time: entry.createdAt,
    operation: entry.operation,
    transport: entry.transport ?? null,
    status: entry.httpStatus ?? null,
    outcome,
    credits: entry.cost,
    reason: entry.status === 'refunded' ? (entry.refundReason ?? null) : null,
    connectionId: entry.keyId?.startsWith(CONNECTION_CALLER_PREFIX)
      ? entry.keyId.slice(CONNECTION_CALLER_PREFIX.length)
      : null,
    ...(entry.batchItem ? { batchId: entry.batchItem.batchId, itemIndex: entry.batchItem.index } : {}),
  };
}

/** A cursor's stored position; the store wrote it, so anything else is a bug, not a bad request. */
function positionOf(stored: string): LedgerPosition {
  const { createdAt, requestId } = JSON.parse(stored) as Partial<LedgerPosition>;
  if (typeof createdAt !== 'string' || typeof requestId !== 'string')
    throw new Error(`A ledger cursor holds no position: ${stored}`);
  return { createdAt, requestId };
}

/** `from` at the start of its day, `to` at the end of its day (a time is taken as it is). */
function boundOf(text: string, side: 'from' | 'to'): string {
  if (text.length > 10) return new Date(Date.parse(text)).toISOString();
  return new Date(dayOf(text) + (side === 'to' ? DAY_MS : 0)).toISOString();
}

function dayOf(text: string): number {
  return Date.parse(`${text}T00:00:00.000Z`);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
