/**
 * What the deployed functions, their builder and infra agree on, without the catalog's values (so a
 * function importing it constructs no operation it does not run): the kinds and names of functions,
 * the variables that name one function or queue to another, what a bundle carries beside it, and the
 * grouping of given operations into MCP tool groups and batch groups. The plan over the whole
 * catalog (one function per operation, per group…) is functions.ts.
 */
import type { OperationId } from './catalog.js';
import type { Family, OperationDefinition } from './operation-definition.js';

export type FunctionKind =
  | 'operation'
  | 'mcp'
  | 'tool-group'
  | 'pages'
  | 'console'
  | 'oauth'
  | 'reconcile'
  | 'batches'
  | 'batch-consumer';

export interface FunctionSpec {
  name: string;
  kind: FunctionKind;
  /** The operations the function runs (an operation's own, or a tool group's). */
  operations: readonly OperationId[];
  /**
   * Carries `dataset.sqlite` (the generated sample) beside its bundle and reads the dataset database:
   * infra sets `DATASET` (`/var/task/dataset.sqlite` for the bundled sample, or the `s3://` URI of an
   * imported database, copied at init, whose functions then ship without the sample).
   */
  dataset: boolean;
  /** Carries Chromium's files (`chromium/`) beside its bundle: x86_64 only, 2 GB memory or more. */
  browser: boolean;
}

/** Beside index.mjs: the modules a function imports only on some paths (esbuild's code splitting). */
export const BUNDLE_CHUNKS_DIRECTORY = 'chunks';
/** Where a data function's bundled dataset database lands (its directory is /var/task on Lambda). */
export const BUNDLED_DATASET_FILE = 'dataset.sqlite';
/** The folder beside a website bundle holding @sparticuz/chromium's brotli archives. */
export const BUNDLED_CHROMIUM_DIRECTORY = 'chromium';
/**
 * The console's script and stylesheet beside the pages and console bundles: the pages function
 * serves them (/console/assets/), the console function names them in its pages by content hash.
 */
export const BUNDLED_CONSOLE_FILES = ['console-script.js', 'console.css'] as const;
/** The folder beside the pages bundle holding the /docs assets (from swagger-ui-dist). */
export const BUNDLED_DOCS_DIRECTORY = 'docs-assets';
/**
 * The file beside the pages bundle holding what it serves from the catalog, made at `npm run build`
 * at the catalog's prices (functions/lambda/pages-documents.ts).
 */
export const BUNDLED_PAGES_DOCUMENTS_FILE = 'pages-documents.json';
/**
 * The file beside the /mcp bundle holding the tools it serves, made at `npm run build` at the
 * catalog's prices (functions/lambda/mcp-tools.ts).
 */
export const BUNDLED_MCP_TOOLS_FILE = 'mcp-tools.json';
/**
 * An imported dataset database kept in S3 (DATASET=s3://<bucket>/<key>), which a data function
 * copies into its ephemeral storage at init. The key is taken literally (no percent-decoding), as
 * the AWS CLI takes it; `*` and `?` are refused because IAM would read them as wildcards in the
 * object's ARN, granting more than the one object.
 */
export interface S3Object {
  bucket: string;
  key: string;
}
export const S3_URI_SCHEME = 's3://';
const S3_URI = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/([^*?]+)$/;
export const S3_URI_FORMAT = 's3://<bucket>/<key> (a bucket name, then a key without * or ?)';

/** `s3://bucket/key` → its bucket and key; undefined when it is not such a URI. */
export function parseS3Uri(uri: string): S3Object | undefined {
  const match = S3_URI.exec(uri);
  return match ? { bucket: match[1] as string, key: match[2] as string } : undefined;
}

/** The families whose operations read the dataset database (or the upstream service). */
export const DATA_FAMILIES: readonly Family[] = ['profiles', 'companies', 'posts', 'search', 'jobs'];

/**
 * The operations whose run function has a module of its own, `shared/operations/<function name>.ts`
 * (`emails-verify.ts`), rather than sharing their family's: the email operations need very different
 * things. The disposable check needs none of the SMTP dialogue and SOCKS client, and verify none of
 * the transliteration tables find spells names with (50 ms of a cold start on their own).
 * shared/operations/index.ts makes tsc check that each has one.
 */
export const OPERATIONS_WITH_OWN_MODULE = ['emails.disposable', 'emails.verify', 'emails.find'] as const;

/**
 * The modules under shared/operations/ that run `definitions`, as a function's generated entry
 * imports them: an operation's own module where it has one, otherwise its family's.
 */
export function implementationModulesOf(definitions: readonly OperationDefinition[]): string[] {
  const ownModule = new Set<string>(OPERATIONS_WITH_OWN_MODULE);
  return [
    ...new Set(definitions.map(({ id, family }) => (ownModule.has(id) ? operationFunctionName(id) : family))),
  ];
}

/**
 * The environment variable naming a tool group's function for /mcp's Lambda invoke:
 * `profile-activity` → `TOOL_GROUP_FUNCTION_PROFILE_ACTIVITY`.
 */
export const toolGroupFunctionVariable = (group: string) =>
  `TOOL_GROUP_FUNCTION_${group.toUpperCase().replace(/-/g, '_')}`;

/**
 * The environment variable holding the URL of a batch group's SQS queue, for the functions that send
 * to it (the batches function, the sweeping reconcile, the consumer deferring an item):
 * `emails-smtp` → `BATCH_QUEUE_URL_EMAILS_SMTP`.
 */
export const batchQueueUrlVariable = (group: string) =>
  `BATCH_QUEUE_URL_${group.toUpperCase().replace(/-/g, '_')}`;

/**
 * The settings a deployed function reads from Secrets Manager rather than from its environment
 * (where anyone allowed to read the function's configuration would see them): the environment
 * carries the secret's ARN in `<SETTING>_SECRET_ARN`, and the function fetches the value at init.
 */
export const SECRET_SETTINGS = [
  'CURSOR_SECRET',
  'UPSTREAM_API_KEY',
  'SMTP_SOCKS_PROXY',
  'OAUTH_SIGNING_SECRET',
] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];
export const secretArnVariable = (setting: SecretSetting) => `${setting}_SECRET_ARN`;

/** The CloudWatch namespace of the functions' metrics (Embedded Metric Format) and of infra's alarms on them. */
export const METRICS_NAMESPACE = 'LookupService';

export const operationFunctionName = (id: OperationId | string) => id.replace(/\./g, '-');
export const toolGroupFunctionName = (group: string) => `mcp-group-${group}`;
export const MCP_FUNCTION = 'mcp';
export const PAGES_FUNCTION = 'pages';
export const CONSOLE_FUNCTION = 'console';
export const OAUTH_FUNCTION = 'oauth';
export const RECONCILE_FUNCTION = 'reconcile';
export const BATCHES_FUNCTION = 'batches';
/**
 * Time past an operation's deadline a batch item's lease runs, for the completion write to land
 * (shared/batches/batch-runner.ts); a queue's visibility timeout outlasts the lease, so a message
 * seen again after a consumer crashed finds the item's lease over.
 */
export const BATCH_LEASE_MARGIN_SECONDS = 30;
export const batchConsumerFunctionName = (group: string) => `batch-${group}`;

/** The MCP tool groups and the operations of each (only operations with a tool). */
export function toolGroupMembersOf(
  operations: readonly OperationDefinition[],
): Map<string, OperationDefinition[]> {
  const groups = new Map<string, OperationDefinition[]>();
  for (const operation of operations) {
    if (!operation.mcpTool) continue;
    const members = groups.get(operation.group) ?? [];
    members.push(operation);
    groups.set(operation.group, members);
  }
  return groups;
}

/** The MCP tool groups and the ids of their operations. */
export function toolGroupsOf(operations: readonly OperationDefinition[]): Map<string, OperationId[]> {
  return new Map(
    [...toolGroupMembersOf(operations)].map(([group, members]) => [
      group,
      members.map((member) => member.id as OperationId),
    ]),
  );
}

/**
 * The operations a batch may run (every one but the account reads, which answer about the caller and
 * cost nothing), by group: one SQS queue and one consumer function per group. The groups already split
 * operations by what they need at run time (SMTP egress, Chromium, the dataset), and unlike the MCP
 * tool groups they include the operations without a tool.
 */
export function batchGroupMembersOf(
  operations: readonly OperationDefinition[],
): Map<string, OperationDefinition[]> {
  const groups = new Map<string, OperationDefinition[]>();
  for (const operation of operations) {
    if (operation.metering === 'account') continue;
    groups.set(operation.group, [...(groups.get(operation.group) ?? []), operation]);
  }
  return groups;
}
