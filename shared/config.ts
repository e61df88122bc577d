/**
 * The only reader of `process.env`. Every setting is parsed once with zod, has a documented default,
 * and a bad value fails start-up naming the variable. The README's configuration table mirrors this.
 */
import { z } from 'zod';

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const priceOverrides = z
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

const configSchema = z.object({
  /** Interface `npm start` listens on. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Port `npm start` listens on. */
  PORT: integer(0, 65_535).default(8787),
  /** Folder of the embedded DynamoDB's files and its endpoint file (local use only). */
  DATA_DIR: z.string().min(1).default('.data'),
  /** Any DynamoDB-compatible endpoint; unset means the embedded one locally and DynamoDB on AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  /** The single table holding every item. */
  DYNAMODB_TABLE: z.string().min(3).max(255).default('lookup-service'),
  /** Region for the AWS SDK; any value works against the embedded DynamoDB. */
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** pino level of the request log: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long an API key (and its account) is cached per process; a revoked key passes this long. */
  KEY_CACHE_SECONDS: integer(0, 300).default(10),
  /** Requests per rolling window for accounts created without `--rate-limit`. */
  DEFAULT_RATE_LIMIT: integer(1, 1_000_000).default(60),
  /** Length of the rolling window in seconds for accounts created without `--rate-window-seconds`. */
  DEFAULT_RATE_WINDOW_SECONDS: integer(1, 86_400).default(60),
  /** Credits the demo account starts with the first time `npm start` creates it. */
  DEMO_ACCOUNT_CREDITS: integer(0, Number.MAX_SAFE_INTEGER).default(1000),
  /** Key that signs paging cursors (32+ characters); unset: a random one kept in the table. */
  CURSOR_SECRET: z.string().min(32).optional(),
  /** JSON object of operation id to price in credits, e.g. {"emails.verify":3}. */
  PRICE_OVERRIDES: priceOverrides.default({}),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(configSchema.shape).map((name) => [name, env[name] === '' ? undefined : env[name]]),
  );
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
