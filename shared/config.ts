/**
 * The only reader of `process.env`. Every setting has a documented default, a variable that is set is
 * parsed once with zod, and a bad value fails start-up naming the variable. The README's
 * configuration table mirrors this.
 */
import * as z from 'zod';
import { batchQueueUrlVariable, toolGroupFunctionVariable } from '../schemas/function-conventions.js';
import { normalHostName } from './http/host-name.js';
import { parseAllowHosts } from './net/address-policy.js';

/**
 * A setting: its value when the variable is unset or empty, and the schema a set value must pass.
 * The schema is made only for a variable that is set: a Lambda function sets a handful of the
 * settings, and making all of them (hundreds of zod schemas) took 10–20 ms of every cold start.
 */
interface Setting<T> {
  readonly fallback: T;
  readonly schema: () => z.ZodType<T>;
}

function setting<T>(fallback: NoInfer<T>, schema: () => z.ZodType<T>): Setting<T> {
  return { fallback, schema };
}

/** A setting with no default: unset, it is undefined. */
function optional<T>(schema: () => z.ZodType<T>): Setting<T | undefined> {
  return { fallback: undefined, schema };
}

/** One message for every way a number can be wrong, so start-up names the range to pick from. */
const integer = (min: number, max: number) => () => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number<string>({ error }).int({ error }).min(min, { error }).max(max, { error });
};

const priceOverrides = () =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)));

/** A comma-separated list, trimmed, empty entries dropped. */
const list = () =>
  z.string().transform((text) =>
    text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  );

/** `true` or `false`. */
const flag = () => z.enum(['true', 'false']).transform((value) => value === 'true');

/**
 * Yahoo-family mailboxes answer every SMTP probe alike, so verification cannot tell them apart: the
 * spec's one unsupported consumer provider (its country domains and two alias domains).
 */
const UNSUPPORTED_EMAIL_DOMAINS = [
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.it',
  'yahoo.es',
  'yahoo.ca',
  'yahoo.com.au',
  'yahoo.co.jp',
  'yahoo.co.in',
  'yahoo.in',
  'yahoo.com.br',
  'yahoo.com.mx',
  'yahoo.com.ar',
  'yahoo.co.nz',
  'yahoo.ie',
  'yahoo.se',
  'yahoo.no',
  'yahoo.dk',
  'yahoo.fi',
  'yahoo.gr',
  'yahoo.pl',
  'yahoo.ro',
  'yahoo.at',
  'yahoo.be',
  'yahoo.nl',
  'yahoo.ch',
  'yahoo.pt',
  'yahoo.cz',
  'yahoo.hu',
  'yahoo.com.tr',
  'yahoo.co.il',
  'yahoo.com.sg',
  'yahoo.com.hk',
  'yahoo.com.tw',
  'yahoo.co.id',
  'yahoo.com.ph',
  'yahoo.com.my',
  'yahoo.co.th',
  'yahoo.com.vn',
  'yahoo.co.za',
  'ymail.com',
  'rocketmail.com',
];

/** A pause in seconds, fractions allowed (a test retries in milliseconds), at most a week. */
const pauseSeconds = () =>
  z.coerce
    .number<string>({ error: 'must be seconds above 0, at most 604800' })
    .positive({ error: 'must be seconds above 0, at most 604800' })
    .max(7 * 86_400, { error: 'must be seconds above 0, at most 604800' });

/** UNSAFE_*_ALLOW_HOSTS: exact host:port pairs; a malformed entry fails start-up naming it. */
const allowHosts = () =>
  z.string().transform((value, ctx) => {
    try {
      return parseAllowHosts(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const NO_HOSTS: ReadonlySet<string> = new Set();

const settings = {
  /** Interface `npm start` listens on. */
  HOST: setting('127.0.0.1', () => z.string().min(1)),
  /** Port `npm start` listens on. */
  PORT: setting(8787, integer(0, 65_535)),
  /** Connections `npm start` holds at once; more are closed as they arrive. */
  HTTP_MAX_CONNECTIONS: setting(1_000, integer(1, 1_000_000)),
  /** How long `npm start` keeps an idle kept-alive connection open for a next request. */
  HTTP_KEEP_ALIVE_SECONDS: setting(5, integer(1, 600)),
  /** Time a request line and headers get to arrive (a new connection's first request too), then 408. */
  HTTP_HEADERS_TIMEOUT_SECONDS: setting(10, integer(1, 600)),
  /** Time a whole request (headers and body) gets to arrive, then 408; at least the headers' time. */
  HTTP_REQUEST_TIMEOUT_SECONDS: setting(30, integer(1, 3_600)),
  /**
   * The public base URL clients use (scheme, host and any path prefix before `/v1`), published as
   * the OpenAPI document's server; unset: the listening address `http://HOST:PORT`.
   */
  PUBLIC_BASE_URL: optional(() =>
    z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .transform((url) => url.replace(/\/+$/, '')),
  ),
  /** Folder of the local state: the SQLite database, or the embedded DynamoDB's files (local use only). */
  DATA_DIR: setting('.data', () => z.string().min(1)),
  /** Where `npm start` and the CLI keep state: `sqlite` (DATA_DIR/lookup.sqlite) or `dynamodb`. */
  STORE: setting('sqlite', () => z.enum(['sqlite', 'dynamodb'])),
  /** With STORE=dynamodb: any DynamoDB-compatible endpoint; unset, the embedded one locally (AWS: DynamoDB). */
  DYNAMODB_ENDPOINT: optional(() => z.url()),
  /**
   * Any SQS-compatible endpoint for the batch queues (`npm run start:synth`'s emulation); unset: SQS of
   * AWS_REGION. Only the Lambda functions send to or read from queues.
   */
  SQS_ENDPOINT: optional(() => z.url()),
  /**
   * /mcp on Lambda only: any Lambda-compatible endpoint to invoke the tool-group functions at
   * (`npm run start:synth`'s emulation; the AWS SDK's own name for it); unset: Lambda of AWS_REGION.
   */
  AWS_ENDPOINT_URL_LAMBDA: optional(() => z.url()),
  /** The single table holding every item. */
  DYNAMODB_TABLE: setting('lookup-service', () => z.string().min(3).max(255)),
  /** Region of every AWS call; any value works against the embedded DynamoDB. */
  AWS_REGION: setting('us-east-1', () => z.string().min(1)),
  /** The dataset database to serve (built by `npm run data -- import`); the generated sample when unset. */
  DATASET: optional(() => z.string().min(1)),
  /**
   * `npm start`: threads reading the dataset database, so a broad search never holds up other requests;
   * 0 reads on the event loop. Unset: one per core but one (at least 1, at most 4). Lambda reads in-thread.
   */
  DATASET_READER_THREADS: optional(integer(0, 64)),
  /** Level of the JSON log lines (pino's levels): fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: setting('info', () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
  /** How long an API key (and its account) is cached per process; a revoked key passes this long. */
  KEY_CACHE_SECONDS: setting(10, integer(0, 300)),
  /**
   * Account reads (GET /v1/account, /usage, /ledger and their v2 and MCP forms) per minute and
   * account, in a window of their own: they never take room from the lookups' rate limit.
   */
  ACCOUNT_RATE_LIMIT: setting(120, integer(1, 1_000_000)),
  /**
   * Refused credentials (a 401 to a request carrying a key or token) one client address may cause
   * per AUTH_FAILURE_WINDOW_SECONDS before its requests are answered 429; 0 turns the throttle off.
   */
  AUTH_FAILURE_LIMIT: setting(20, integer(0, 1_000_000)),
  /** The sliding window of AUTH_FAILURE_LIMIT, in seconds. */
  AUTH_FAILURE_WINDOW_SECONDS: setting(60, integer(1, 86_400)),
  /** How long a /console sign-in lasts (the session's and its cookie's lifetime), in seconds. */
  CONSOLE_SESSION_SECONDS: setting(28_800, integer(60, 2_592_000)),
  /** Requests per rolling window for accounts created without `--rate-limit`. */
  DEFAULT_RATE_LIMIT: setting(60, integer(1, 1_000_000)),
  /** Length of the rolling window in seconds for accounts created without `--rate-window-seconds`. */
  DEFAULT_RATE_WINDOW_SECONDS: setting(60, integer(1, 86_400)),
  /** Credits the demo account starts with the first time `npm start` creates it. */
  DEMO_ACCOUNT_CREDITS: setting(1000, integer(0, Number.MAX_SAFE_INTEGER)),
  /** Key that signs paging cursors (32+ characters); unset: a random one kept in the table. */
  CURSOR_SECRET: optional(() => z.string().min(32)),
  /**
   * Name we greet mail servers with. Must be a domain we own whose A record's reverse DNS matches the
   * sending IP; the default is reserved (RFC 2606) so it can never be someone else's name.
   */
  SMTP_HELO_NAME: setting('verifier.invalid', () => z.string().min(1).max(253)),
  /** Envelope sender of probes (no message is ever sent); a mailbox at our own domain. */
  SMTP_MAIL_FROM: setting('probe@verifier.invalid', () => z.string().min(3).max(254)),
  /** Port of mail servers: 25 on the internet; another value for tests and relays. */
  SMTP_PORT: setting(25, integer(1, 65_535)),
  /** Resolvers for MX lookups, comma-separated `ip` or `ip:port`; unset: the system's. */
  DNS_SERVERS: optional(list),
  /** `host:port` of a SOCKS5 proxy for port-25 egress (AWS Lambda cannot send on 25 directly). */
  SMTP_SOCKS_PROXY: optional(() => z.string().regex(/^[^\s:]+:\d{1,5}$/, 'must be host:port')),
  /** Concurrent SMTP sessions per MX host across every process. */
  SMTP_MAX_SESSIONS_PER_MX: setting(2, integer(1, 100)),
  /** Time budget of one verification or find, well inside the 45 s lookup deadline. */
  SMTP_BUDGET_SECONDS: setting(30, integer(1, 40)),
  /** Time a mail server gets for each reply (and to accept the connection). */
  SMTP_STEP_TIMEOUT_SECONDS: setting(10, integer(1, 30)),
  /** The most RCPT commands in one pipelined SMTP group (a find's probe and candidates go in groups). */
  SMTP_PIPELINING_GROUP_SIZE: setting(10, integer(1, 50)),
  /** The least time between the starts of two pipelined groups in one SMTP session. */
  SMTP_PIPELINING_PACING_MS: setting(100, integer(0, 10_000)),
  /** How long a mail host that answered a pipelined group out of step is spoken to in lock-step. */
  SMTP_LOCK_STEP_MEMORY_SECONDS: setting(86_400, integer(0, 30 * 86_400)),
  /** How long email find remembers a domain's catch-all status and working pattern. */
  EMAIL_DOMAIN_CACHE_SECONDS: setting(7 * 86_400, integer(0, 30 * 86_400)),
  /** Domains verify and find refuse with 422 email_unverifiable (comma-separated). */
  UNSUPPORTED_EMAIL_DOMAINS: setting(UNSUPPORTED_EMAIL_DOMAINS, list),
  /**
   * UNSAFE, tests only: exact `host:port` pairs of mail servers that may be dialled although they
   * resolve to non-public addresses (loopback SMTP servers). Logged as a warning at start-up.
   */
  UNSAFE_SMTP_ALLOW_HOSTS: setting(NO_HOSTS, allowHosts),
  /** The identifying User-Agent website tools send. */
  WEBSITE_USER_AGENT: setting(
    'LookupServiceBot/1.0 (+https://lookup-service.invalid/bot; website tools of a data lookup API)',
    () => z.string().min(1),
  ),
  /** Processing budget of one website request; the spec's is 35 s. */
  WEBSITE_BUDGET_SECONDS: setting(35, integer(1, 35)),
  /** Requests one page may send (document, redirects and subresources). */
  WEBSITE_MAX_REQUESTS: setting(300, integer(1, 10_000)),
  /** Distinct hosts one page may contact. */
  WEBSITE_MAX_HOSTS: setting(30, integer(1, 1_000)),
  /** Concurrent page loads per website host across every process; beyond it 503, refunded. */
  WEBSITE_MAX_PAGES_PER_HOST: setting(4, integer(1, 100)),
  /** Whether email discovery obeys robots.txt for the pages it follows (never for the submitted page). */
  WEBSITE_RESPECT_ROBOTS: setting(true, flag),
  /**
   * UNSAFE, tests only: exact `host:port` pairs that bypass the website address and port rules
   * (pages served on loopback). Logged as a warning when the website runtime starts.
   */
  UNSAFE_WEBSITE_ALLOW_HOSTS: setting(NO_HOSTS, allowHosts),
  /** JSON object of operation id to price in credits, e.g. {"emails.verify":3}. */
  PRICE_OVERRIDES: setting({}, priceOverrides),
  /** Domain that prefixes the `_meta` key of tool results (`<SERVICE_DOMAIN>/lookup`). */
  SERVICE_DOMAIN: setting('lookup-service.invalid', () =>
    z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, 'must be a domain name'),
  ),
  /** Serve the MCP endpoint; `false` answers every /mcp request 503 without doing anything else. */
  GATEWAY_MCP_ENABLED: setting(true, flag),
  /**
   * The most characters one MCP tool result may hold, its text blocks and structuredContent together
   * (shared/mcp/result-bound.ts); a longer list is cut to fit, with paging to the rest where it pages.
   */
  MCP_RESULT_MAX_CHARS: setting(64_000, integer(4_000, 10_000_000)),
  /**
   * Host names refused on /mcp with 403 (the marketplace proxy's), comma-separated; compared in
   * normal form (any case, with or without a trailing dot or a port).
   */
  MCP_REJECTED_HOSTS: setting([], () =>
    list().transform((hosts, ctx) =>
      hosts.map((host) => {
        const name = normalHostName(host);
        if (name === undefined) ctx.addIssue({ code: 'custom', message: `"${host}" is not a host name` });
        return name ?? host;
      }),
    ),
  ),
  /**
   * Issuer (`iss`) of an outside authorization server whose access tokens /mcp accepts besides API
   * keys (subjects bound with `accounts link-oauth`). Unset: the service's own authorization server
   * issues them (docs/oauth.md).
   */
  OAUTH_ISSUER: optional(() => z.url()),
  /** Where the issuer publishes its signing keys. Unset: `<OAUTH_ISSUER>/.well-known/jwks.json`. */
  OAUTH_JWKS_URL: optional(() => z.url()),
  /**
   * Secrets the built-in authorization server derives its token-signing keys from (used when
   * OAUTH_ISSUER is unset), comma-separated, newest first: the first signs, all verify. Unset: one is
   * generated on first start and kept in the store. On AWS: a Secrets Manager secret.
   */
  OAUTH_SIGNING_SECRET: optional(() =>
    z
      .string()
      .refine(
        (value) => value.split(',').every((secret) => secret.trim().length >= 16),
        'must be secrets of 16 or more characters each, separated by commas',
      ),
  ),
  /** Lifetime of the built-in authorization server's access tokens (JWTs for /mcp). */
  OAUTH_ACCESS_TOKEN_SECONDS: setting(600, integer(60, 86_400)),
  /** Lifetime of a refresh token; each use rotates it and starts a new lifetime. */
  OAUTH_REFRESH_TOKEN_DAYS: setting(30, integer(1, 365)),
  /** Lifetime of an authorization code, from the customer's approval to its exchange. */
  OAUTH_CODE_SECONDS: setting(60, integer(1, 600)),
  /**
   * Test-only: `host:port` pairs from which Client ID Metadata Documents may be fetched although
   * their addresses are not public (the documents served on loopback by tests). Empty in production.
   */
  UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS: setting(NO_HOSTS, allowHosts),
  /** Test-only: a PEM certificate authority trusted for Client ID Metadata Documents (a test's own). */
  UNSAFE_OAUTH_CLIENT_CA: optional(() => z.string().min(1)),
  /**
   * Pauses before each retry of a batch webhook a receiver did not take (no 2xx), comma-separated
   * seconds (fractions allowed); after the last the delivery is given up as failed. The default
   * retries 7 times over about 10.7 hours.
   */
  WEBHOOK_RETRY_SCHEDULE_SECONDS: setting([5, 30, 120, 600, 1800, 7200, 28800], () =>
    list().pipe(z.array(pauseSeconds()).min(1, 'must list at least one pause')),
  ),
  /** Time one webhook attempt gets, from connecting to the receiver's answer; longer is a failed attempt. */
  WEBHOOK_TIMEOUT_SECONDS: setting(10, integer(1, 60)),
  /**
   * UNSAFE, tests only: exact `host:port` pairs batch webhooks may be sent to, and batch items
   * (`itemsUrl`) fetched from, although their addresses are not public, over plain HTTP too (a test's
   * server on loopback). Empty in production.
   */
  UNSAFE_BATCH_URL_ALLOW_HOSTS: setting(NO_HOSTS, allowHosts),
  /** Where data lookups read: `dataset` (the embedded sample) or `upstream` (another service's /api/v2). */
  DATA_SOURCE: setting('dataset', () => z.enum(['dataset', 'upstream'])),
  /**
   * With DATA_SOURCE=upstream: base URL of a service speaking this project's /api/v2 (scheme, host and
   * any path prefix before `/api/v2`). No credentials in it: URLs end up in logs, the key must not.
   */
  UPSTREAM_URL: optional(() =>
    z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .refine((url) => {
        const { username, password, search, hash } = new URL(url);
        return !username && !password && !search && !hash;
      }, 'must be a base URL without credentials, query or fragment (the key goes in UPSTREAM_API_KEY)')
      .transform((url) => url.replace(/\/+$/, '')),
  ),
  /** With DATA_SOURCE=upstream: the key sent to it as X-API-Key. Never logged. */
  UPSTREAM_API_KEY: optional(() => z.string().min(1).max(1024)),
  /**
   * Deadline of one upstream request, from asking for it (a wait for a free slot included) to the last
   * byte of its answer. 4 s leaves room for two upstream requests in a row inside the 10 s lookup deadline.
   */
  UPSTREAM_TIMEOUT_MS: setting(4_000, integer(1, 60_000)),
  /** Upstream requests (and kept-alive connections) one process has at once; more wait, within their deadline. */
  UPSTREAM_MAX_IN_FLIGHT: setting(16, integer(1, 1_000)),
  /**
   * The scheduled reconcile (Lambda) settles in-flight debits older than this; unset, the longest
   * operation deadline plus a minute. Shorter only where functions are known to be done sooner.
   */
  RECONCILE_AFTER_SECONDS: optional(integer(1, 86_400)),
  /** How often `npm start` reconciles (it also does at start-up); AWS's schedule runs every 5 minutes. */
  RECONCILE_INTERVAL_SECONDS: setting(300, integer(1, 86_400)),
  /** Most items one batch may hold (POST /v1/batches); a longer list is refused with 413. */
  BATCH_MAX_ITEMS: setting(10_000, integer(1, 1_000_000)),
  /** Largest batch body in bytes (JSON array or JSONL); a larger one is refused with 413. */
  BATCH_MAX_BYTES: setting(10 * 1024 * 1024, integer(1_024, 100 * 1024 * 1024)),
  /** Items `npm start`'s worker pool runs at once, over every batch. */
  BATCH_WORKERS: setting(8, integer(1, 256)),
  /** Items one account's batches run at once, so a large customer cannot take every worker. */
  BATCH_ACCOUNT_CONCURRENCY: setting(4, integer(1, 256)),
  /** How often the worker pool looks for work (new batches, credits granted to a paused one), in ms. */
  BATCH_POLL_MS: setting(500, integer(10, 60_000)),
};

/** DATA_SOURCE=upstream needs both of these; naming each missing one is what start-up reports. */
const UPSTREAM_REQUIRED = ['UPSTREAM_URL', 'UPSTREAM_API_KEY'] as const;

type Settings = typeof settings;
type SettingValues = { [Name in keyof Settings]: Settings[Name] extends Setting<infer T> ? T : never };

export type Config = Omit<SettingValues, 'PUBLIC_BASE_URL'> & { PUBLIC_BASE_URL: string };

/** Every setting's environment variable, in declaration order (the README's table lists each). */
export const settingNames: readonly string[] = Object.keys(settings);

/** The canonical URL of the MCP endpoint: what OAuth tokens must name as their audience. */
export function mcpResourceUrl(config: Config): string {
  return `${config.PUBLIC_BASE_URL}/mcp`;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const values = new Map<string, unknown>();
  const problems: string[] = [];
  for (const [name, { fallback, schema }] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const text = env[name];
    if (text === undefined || text === '') {
      // A copy, as zod's defaults are: a caller changing its config's list cannot change another's.
      values.set(name, structuredClone(fallback));
      continue;
    }
    const parsed = schema().safeParse(text);
    if (parsed.success) values.set(name, parsed.data);
    else
      problems.push(
        ...parsed.error.issues.map((issue) => `${[name, ...issue.path].join('.')}: ${issue.message}`),
      );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  const read = Object.fromEntries(values) as SettingValues;
  if (read.HTTP_REQUEST_TIMEOUT_SECONDS < read.HTTP_HEADERS_TIMEOUT_SECONDS)
    throw new ConfigError(
      'Invalid configuration: HTTP_REQUEST_TIMEOUT_SECONDS: must be at least HTTP_HEADERS_TIMEOUT_SECONDS',
    );
  if (read.DATA_SOURCE === 'upstream') {
    const missing = UPSTREAM_REQUIRED.filter((name) => read[name] === undefined);
    if (missing.length > 0)
      throw new ConfigError(
        `Invalid configuration: ${missing.map((name) => `${name}: is required when DATA_SOURCE=upstream`).join('; ')}`,
      );
  }
  return { ...read, PUBLIC_BASE_URL: read.PUBLIC_BASE_URL ?? listeningAddress(read) };
}

/** `http://HOST:PORT`, with an IPv6 host in brackets. */
function listeningAddress({ HOST, PORT }: { HOST: string; PORT: number }): string {
  return `http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}`;
}

/**
 * The batch queues' URLs, by group: `BATCH_QUEUE_URL_<GROUP>` holds each (infra sets them on the
 * functions that send to the queues). One missing fails the init phase, naming it.
 */
export function batchQueueUrls(
  groups: Iterable<string>,
  env: Record<string, string | undefined> = process.env,
): Map<string, string> {
  return requiredPerGroup(groups, env, batchQueueUrlVariable, 'a function sending batch items');
}

/**
 * The /mcp Lambda function's tool-group functions, by group: `TOOL_GROUP_FUNCTION_<GROUP>` names each
 * group's function (name or ARN; infra sets them). One missing fails the init phase, naming it.
 */
export function toolGroupFunctions(
  groups: Iterable<string>,
  env: Record<string, string | undefined> = process.env,
): Map<string, string> {
  return requiredPerGroup(groups, env, toolGroupFunctionVariable, 'the /mcp function');
}

/** One variable per group, each required: the missing ones fail together, each named. */
function requiredPerGroup(
  groups: Iterable<string>,
  env: Record<string, string | undefined>,
  variableOf: (group: string) => string,
  requiredBy: string,
): Map<string, string> {
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const group of groups) {
    const variable = variableOf(group);
    const value = env[variable];
    if (value) values.set(group, value);
    else missing.push(`${variable}: is required by ${requiredBy}`);
  }
  if (missing.length > 0) throw new ConfigError(`Invalid configuration: ${missing.join('; ')}`);
  return values;
}
