/**
 * The deployment's settings, each read from CDK context (`npx cdk synth -c stage=prod`) or, when the
 * context does not have it, from the environment (`LOOKUP_STAGE=prod`). Parsed once with zod; a bad
 * value stops the synth naming the setting. docs/aws.md lists them from `settingDocs`.
 */
import * as z from 'zod';
import { parseS3Uri, S3_URI_FORMAT } from '../schemas/functions.js';

/** Ephemeral storage of a data function with `datasetS3Uri` unless `datasetEphemeralStorageMb` says otherwise. */
export const DEFAULT_DATASET_EPHEMERAL_MB = 4096;

/** Stages whose table is protected from deletion and retained when the stack goes. */
export const PRODUCTION_STAGES: readonly string[] = ['prod', 'production'];

const optionalText = z.string().min(1).optional();
const arn = z
  .string()
  .regex(/^arn:aws[a-z-]*:/, 'must be an ARN')
  .optional();
const positive = (max: number) => z.coerce.number().int().min(1).max(max);
/** A setting holding JSON (context from cdk.json arrives as an object and is stringified first). */
const jsonObject = <T extends z.ZodType>(shape: T) =>
  z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(shape);

const settingsSchema = z
  .object({
    stage: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,19}$/, 'must be lower-case letters, digits and hyphens (up to 20)')
      .default('dev'),
    distDir: z.string().min(1).default('dist'),
    domainName: optionalText,
    certificateArn: arn,
    emailEgress: z.enum(['none', 'socks', 'vpc']).default('none'),
    smtpSocksSecretArn: arn,
    natEipAllocationIds: z
      .string()
      .transform((ids) => ids.split(',').map((id) => id.trim()))
      .pipe(z.array(z.string().regex(/^eipalloc-[0-9a-f]+$/, 'must be eipalloc-... ids')).min(1))
      .optional(),
    dataSource: z.enum(['dataset', 'upstream']).default('dataset'),
    datasetS3Uri: z
      .string()
      .refine((uri) => parseS3Uri(uri) !== undefined, `must be ${S3_URI_FORMAT}`)
      .optional(),
    // Lambda's range for ephemeral storage.
    datasetEphemeralStorageMb: z.coerce.number().int().min(512).max(10_240).optional(),
    upstreamUrl: z.url({ protocol: /^https?$/ }).optional(),
    upstreamApiKeySecretArn: arn,
    cursorSecretArn: arn,
    alarmEmail: z.email().optional(),
    logRetentionDays: z.coerce
      .number()
      .pipe(z.union([1, 3, 5, 7, 14, 30, 60, 90, 180, 365, 731].map((days) => z.literal(days))))
      .default(30),
    throttleRateLimit: positive(100_000).default(100),
    throttleBurstLimit: positive(100_000).default(200),
    // WAF's range for a rate-based rule's limit.
    wafRateLimit: z.coerce.number().int().min(10).max(2_000_000_000).default(3_000),
    tracing: z.enum(['true', 'false']).default('false'),
    // SQS's range for a redrive policy's maxReceiveCount.
    batchMaxReceiveCount: positive(1_000).default(5),
    // Lambda's range for an event source mapping's maximumConcurrency.
    batchMaxConcurrency: z.coerce.number().int().min(2).max(1_000).default(10),
    reservedConcurrency: jsonObject(z.record(z.string(), z.number().int().min(0))).default({}),
    functionEnvironment: jsonObject(z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.string())).default({}),
  })
  .superRefine((settings, context) => {
    const need = (when: boolean, setting: string, message: string) => {
      if (when) context.addIssue({ code: 'custom', path: [setting], message });
    };
    need(
      Boolean(settings.domainName) !== Boolean(settings.certificateArn),
      'certificateArn',
      'domainName and certificateArn go together',
    );
    need(
      settings.emailEgress === 'socks' && !settings.smtpSocksSecretArn,
      'smtpSocksSecretArn',
      'is required when emailEgress=socks',
    );
    need(
      settings.natEipAllocationIds !== undefined && settings.emailEgress !== 'vpc',
      'natEipAllocationIds',
      'only applies to emailEgress=vpc',
    );
    need(
      settings.datasetS3Uri !== undefined && settings.dataSource !== 'dataset',
      'datasetS3Uri',
      'only applies to dataSource=dataset',
    );
    need(
      settings.datasetEphemeralStorageMb !== undefined && settings.datasetS3Uri === undefined,
      'datasetEphemeralStorageMb',
      'only applies with datasetS3Uri',
    );
    need(
      settings.dataSource === 'upstream' && !(settings.upstreamUrl && settings.upstreamApiKeySecretArn),
      'upstreamUrl',
      'upstreamUrl and upstreamApiKeySecretArn are required when dataSource=upstream',
    );
  });

export type Settings = z.infer<typeof settingsSchema> & { production: boolean };
export type SettingName = keyof z.input<typeof settingsSchema>;

/** What each setting does, for docs/aws.md; the keys are exactly the schema's. */
export const settingDocs: Readonly<Record<SettingName, string>> = {
  stage:
    'Stage name: prefixes stack and resource names and names the API stage. `prod` and `production` are production stages (table deletion protection, RETAIN). Default `dev`.',
  distDir:
    'Folder holding the bundles of `npm run build` (`<distDir>/functions/<name>/index.mjs`). Default `dist`.',
  domainName: 'Custom domain of the API (with `certificateArn`, an ACM certificate in the same region).',
  certificateArn: 'ACM certificate ARN for `domainName`.',
  emailEgress:
    'How email verify/find reach port 25: `none` (Lambda blocks port 25: SMTP checks answer 503, refunded), `socks` (a SOCKS5 relay whose `host:port` is the secret `smtpSocksSecretArn`), or `vpc` (private subnets behind NAT gateways with Elastic IPs; ask AWS to lift the port-25 limit and set reverse DNS). Default `none`.',
  smtpSocksSecretArn: 'Secrets Manager secret holding the SOCKS5 relay `host:port` (emailEgress=socks).',
  natEipAllocationIds:
    'Comma-separated Elastic IP allocation ids for the NAT gateways (emailEgress=vpc), so reverse DNS and the port-25 request name addresses you keep. Unset: new Elastic IPs.',
  dataSource:
    '`dataset` (the dataset database: the sample bundled next to each data function, DATASET=/var/task/dataset.sqlite, or an imported one from `datasetS3Uri`) or `upstream` (another service’s /api/v2). Default `dataset`.',
  datasetS3Uri:
    'The imported dataset database as an S3 object, `s3://<bucket>/<key>` (dataSource=dataset): data functions get DATASET=<the URI>, `s3:GetObject` on that object only, and copy it into their ephemeral storage at cold start; their code no longer carries the sample. Unset: the bundled sample (DATASET=/var/task/dataset.sqlite).',
  datasetEphemeralStorageMb: `Ephemeral storage (/tmp) of the data functions with datasetS3Uri, in MiB (512–10240): the object's size and some room. Default ${DEFAULT_DATASET_EPHEMERAL_MB}.`,
  upstreamUrl: 'Base URL of the upstream service (dataSource=upstream).',
  upstreamApiKeySecretArn: 'Secrets Manager secret holding UPSTREAM_API_KEY (dataSource=upstream).',
  cursorSecretArn:
    'Secrets Manager secret holding CURSOR_SECRET (32+ characters). Unset: the stack generates one.',
  alarmEmail: 'Email address subscribed to the alarm topic. Unset: the topic has no subscription.',
  logRetentionDays: 'Retention of every log group, in days (a CloudWatch Logs value). Default 30.',
  throttleRateLimit: 'Stage throttling: steady requests per second. Default 100.',
  throttleBurstLimit: 'Stage throttling: burst. Default 200.',
  wafRateLimit:
    'The AWS WAF rate-based rule on the stage: requests one client IP may send per 5 minutes before WAF answers it 429 (10 or more). Default 3000 (10 per second on average).',
  tracing: '`true` turns on X-Ray tracing for the functions and the API stage. Default `false`.',
  batchMaxReceiveCount:
    "Receives of a batch item's queue message before SQS moves it to the group's dead-letter queue (whose alarm then fires). Default 5.",
  batchMaxConcurrency:
    "Most consumer invocations at once per batch group's queue (the event source mapping's maximumConcurrency, 2 or more). Default 10.",
  reservedConcurrency:
    'JSON object of function name to reserved concurrency, e.g. `{"websites-text":10}`. Default `{}` (none: see docs/aws.md).',
  functionEnvironment:
    'JSON object of extra environment for every function (service settings such as `PRICE_OVERRIDES`, `SMTP_HELO_NAME`, `SMTP_MAIL_FROM`, `OAUTH_ISSUER`, `SERVICE_DOMAIN`).',
};

/** `natEipAllocationIds` → `LOOKUP_NAT_EIP_ALLOCATION_IDS`. */
export const environmentVariableOf = (setting: string) =>
  `LOOKUP_${setting.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;

export class SettingsError extends Error {}

/**
 * Reads every setting: `context(name)` first (CDK context), then the environment. Values arrive as
 * strings from the CLI and as anything from cdk.json, so each is turned into a string first.
 */
export function readSettings(
  context: (name: string) => unknown,
  env: Record<string, string | undefined> = process.env,
): Settings {
  const raw = Object.fromEntries(
    Object.keys(settingDocs).map((name) => {
      const value = context(name) ?? env[environmentVariableOf(name)];
      const text = value === undefined || value === '' ? undefined : asText(value);
      return [name, text];
    }),
  );
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) =>
        `${String(issue.path[0] ?? '')} (${environmentVariableOf(String(issue.path[0] ?? ''))}): ${issue.message}`,
    );
    throw new SettingsError(`Invalid deployment settings: ${problems.join('; ')}`);
  }
  return { ...parsed.data, production: PRODUCTION_STAGES.includes(parsed.data.stage) };
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
