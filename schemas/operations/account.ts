/**
 * The customer's own account: its balance, rate limit, calling key and prices; its usage by day and
 * operation; its ledger, entry by entry. Account reads are not lookups (`metering: 'account'`): free,
 * never in the ledger they read, counted in a window of their own instead of the lookups' one, and
 * open to any key of the account whatever its scopes. Their MCP tools are listed only on request, so
 * the default tools/list stays the spec's 35.
 */
import * as z from 'zod';
import type { OperationDefinition } from '../operation-definition.js';
import { cursorParam } from '../parameters.js';

/** Account reads run no lookup: a few store reads. */
const ACCOUNT_RUNTIME = { timeoutMs: 10_000, memoryMb: 256, needs: [] } as const;
const ACCOUNT_STATUSES = [200, 400, 401, 403, 405, 406, 415, 429, 500, 503] as const;

/** At most this many days per usage request; the default range is the last DEFAULT_USAGE_DAYS. */
export const MAX_USAGE_DAYS = 92;
export const DEFAULT_USAGE_DAYS = 30;
/** Ledger entries per page. */
export const LEDGER_PAGE_SIZE = 50;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** A real calendar date: `2026-02-30` matches the pattern but is no day. */
const isCalendarDate = (text: string) => {
  const time = Date.parse(`${text.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text.slice(0, 10);
};

/** A UTC day, `YYYY-MM-DD`. */
export const dayParam = z
  .string()
  .max(10)
  .regex(DATE, 'must be a UTC date, YYYY-MM-DD')
  .refine(isCalendarDate, { message: 'is not a calendar date', params: { detailCode: 'invalid_format' } });

/** A UTC day (`YYYY-MM-DD`) or an instant (`YYYY-MM-DDTHH:MM:SS[.sss]Z`). */
export const dayOrTimeParam = z
  .string()
  .max(24)
  .refine((text) => DATE.test(text) || (TIME.test(text) && !Number.isNaN(Date.parse(text))), {
    message: 'must be a UTC date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SSZ)',
    params: { detailCode: 'invalid_format' },
  })
  .refine(isCalendarDate, { message: 'is not a calendar date', params: { detailCode: 'invalid_format' } });

const operationIdParam = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/, 'must be an operation id, e.g. profiles.details');

/** The surfaces a call came through (`batch`: an item of a bulk lookup, POST /v1/batches). */
export const transportSchema = z.enum(['rest', 'mcp', 'v2', 'batch']);

export const priceSchema = z.object({
  operation: z.string(),
  paths: z.array(z.string()),
  mcpTool: z.string().nullable(),
  credits: z.number().int().min(0),
  settlement: z.string(),
});

/** A spend cap of the calling key: its size, what is left of it, and when it starts over (UTC). */
const capSchema = z.object({
  cap: z.number().int().min(1),
  left: z.number().int().min(0),
  resetsAt: z.string(),
});

export const accountSchema = z.object({
  accountId: z.string(),
  name: z.string(),
  status: z.enum(['active', 'suspended']),
  credits: z.object({ balance: z.number().int().min(0) }),
  rateLimit: z.object({
    limit: z.number().int().min(0),
    windowSeconds: z.number().int().min(1),
    remaining: z.number().int().min(0),
    resetSeconds: z.number().int().min(0),
  }),
  key: z
    .object({
      keyId: z.string(),
      label: z.string().nullable(),
      scopes: z.array(z.string()).nullable(),
      expiresAt: z.string().nullable(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      caps: z.object({ daily: capSchema.nullable(), monthly: capSchema.nullable() }),
    })
    .nullable(),
  prices: z.array(priceSchema),
});

export const usageRowSchema = z.object({
  date: z.string(),
  operation: z.string(),
  calls: z.number().int().min(0),
  creditsCharged: z.number().int().min(0),
  creditsRefunded: z.number().int().min(0),
  callsByTransport: z.object({
    rest: z.number().int().min(0),
    mcp: z.number().int().min(0),
    v2: z.number().int().min(0),
    batch: z.number().int().min(0),
  }),
});

export const ledgerOutcomes = ['charged', 'refunded', 'free', 'in_flight'] as const;

export const ledgerEntrySchema = z.object({
  requestId: z.string(),
  time: z.string(),
  operation: z.string(),
  transport: transportSchema.nullable(),
  status: z.number().int().nullable(),
  outcome: z.enum(ledgerOutcomes),
  credits: z.number().int().min(0),
  reason: z.string().nullable(),
  /** The OAuth connection (console, Connections) that made the call; null for an API key's. */
  connectionId: z.string().nullable(),
  /** Only on a batch item's entry (transport `batch`): its batch, and its 0-based index in it. */
  batchId: z.string().optional(),
  itemIndex: z.number().int().min(0).optional(),
});

const accountOperation = {
  family: 'account',
  group: 'account',
  identifiers: [],
  price: 0,
  metering: 'account',
  settlement: { chargedErrors: [] },
  mcpListing: 'on-request',
  runtime: ACCOUNT_RUNTIME,
  statuses: ACCOUNT_STATUSES,
  examples: {},
} as const;

export const accountDetails = {
  ...accountOperation,
  id: 'account.details',
  summary: 'Your account: balance, rate limit, calling key and prices',
  description:
    'The account of the calling key: its credit balance, its lookup rate limit with what is left of the ' +
    'current window (not counting this call), the calling key (null for an OAuth caller on /mcp), and the ' +
    'price of every operation in this deployment. Free; not counted against the lookup rate limit.',
  variants: [{ path: '/v1/account' }],
  query: z.object({}),
  data: accountSchema,
  paging: 'none',
  mcpTool: 'get_account',
  responseExample: {
    data: {
      accountId: 'acct_3f9c2a7d1b8e4c60',
      name: 'Acme Research',
      status: 'active',
      credits: { balance: 4210 },
      rateLimit: { limit: 300, windowSeconds: 60, remaining: 297, resetSeconds: 41 },
      key: {
        keyId: 'key_8d1e5b7a9c2f4e31',
        label: 'ci',
        scopes: null,
        expiresAt: null,
        createdAt: '2026-11-02T09:14:03.511Z',
        lastUsedAt: '2026-11-26T08:01:44.208Z',
        caps: { daily: { cap: 500, left: 380, resetsAt: '2026-11-27T00:00:00.000Z' }, monthly: null },
      },
      prices: [
        {
          operation: 'profiles.details',
          paths: ['/v1/profiles/details/by-username', '/v1/profiles/details/by-url'],
          mcpTool: 'get_profile',
          credits: 1,
          settlement: 'Charged on a result; refunded on 404 and on failures of ours or the source.',
        },
      ],
    },
    meta: { creditCost: 0 },
  },
} as const satisfies OperationDefinition;

export const accountUsage = {
  ...accountOperation,
  id: 'account.usage',
  summary: 'Your usage by UTC day and operation',
  description:
    `One row per UTC day and operation from the ledger: calls (also by transport: rest, mcp, v2, and ` +
    `batch for the items of bulk lookups), credits charged ` +
    `(in-flight calls count as charged so far) and credits refunded. from and to are UTC dates ` +
    `(YYYY-MM-DD, both included), at most ${MAX_USAGE_DAYS} days apart; the default is the last ` +
    `${DEFAULT_USAGE_DAYS} days up to today. Free; not counted against the lookup rate limit.`,
  variants: [{ path: '/v1/account/usage' }],
  examples: { from: '2026-11-01', to: '2026-11-26' },
  query: z.object({ from: dayParam.optional(), to: dayParam.optional() }),
  data: z.object({ from: z.string(), to: z.string(), rows: z.array(usageRowSchema) }),
  paging: 'none',
  mcpTool: 'get_account_usage',
  responseExample: {
    data: {
      from: '2026-11-25',
      to: '2026-11-26',
      rows: [
        {
          date: '2026-11-25',
          operation: 'profiles.details',
          calls: 12,
          creditsCharged: 11,
          creditsRefunded: 1,
          callsByTransport: { rest: 9, mcp: 3, v2: 0, batch: 0 },
        },
      ],
    },
    meta: { creditCost: 0 },
  },
} as const satisfies OperationDefinition;

export const accountLedger = {
  ...accountOperation,
  id: 'account.ledger',
  summary: 'Your ledger: every call with what it cost and why',
  description:
    `The account's ledger entries, newest first, ${LEDGER_PAGE_SIZE} per page: each call's request id ` +
    '(the X-Request-Id of its answer), time, operation, transport, public HTTP status, outcome ' +
    '(charged, refunded, free, in_flight), the credits that outcome moved, and the reason of a refund ' +
    '(the error code, or `reconciled`); an item of a batch (transport `batch`) also has its batchId ' +
    'and itemIndex (0-based, in the order submitted). Filters: requestId, operation, from and to (UTC dates, both ' +
    'included, or times: from included, to excluded). Omit cursor on the first request; while ' +
    'meta.paging.hasMore is true, copy nextCursor unchanged into cursor (with the same filters). ' +
    'Cursors expire within 15 minutes. Free; not counted against the lookup rate limit.',
  variants: [{ path: '/v1/account/ledger' }],
  // A request id of the shape the service mints; a real one is the X-Request-Id of an answer.
  examples: {
    requestId: 'req_q7Zk2mW9xT4vLp8nRf3sHd1c',
    operation: 'profiles.details',
    from: '2026-11-01',
    to: '2026-11-26',
  },
  query: z.object({
    requestId: z.string().min(1).max(100).optional(),
    operation: operationIdParam.optional(),
    from: dayOrTimeParam.optional(),
    to: dayOrTimeParam.optional(),
    cursor: cursorParam.optional(),
  }),
  data: z.object({ entries: z.array(ledgerEntrySchema) }),
  paging: 'cursor',
  mcpTool: 'get_account_ledger',
  responseExample: {
    data: {
      entries: [
        {
          requestId: 'req_q7Zk2mW9xT4vLp8nRf3sHd1c',
          time: '2026-11-26T08:01:44.208Z',
          operation: 'profiles.details',
          transport: 'rest',
          status: 404,
          outcome: 'refunded',
          credits: 1,
          reason: 'resource_not_found',
          connectionId: null,
        },
      ],
    },
    meta: { creditCost: 0, paging: { hasMore: false, nextCursor: null } },
  },
} as const satisfies OperationDefinition;

export const accountOperations = [accountDetails, accountUsage, accountLedger] as const;
