/**
 * The deployed functions as plain data: for each entry of `deployedFunctions()`, the nested stack it
 * lives in, its architecture, memory, timeout, ephemeral storage, table grants and which settings it
 * receives, all derived from the catalog's runtime needs. The stacks only turn this into resources,
 * and the tests read the same plan to know what the template must hold.
 */
import { catalog } from '../schemas/catalog.js';
import { deployedFunctions, type FunctionKind, type FunctionSpec } from '../schemas/functions.js';
import type { OperationDefinition, RuntimeNeed } from '../schemas/operation-definition.js';
import { type TableGrant, tableGrants } from './table-access.js';

/** The MCP lookup deadline (SPEC): /mcp waits this long for a tool group's answer. */
export const MCP_DEADLINE_SECONDS = 45;
/** Room past a function's own deadline to settle, log and answer before Lambda stops it. */
const LAMBDA_MARGIN_SECONDS = 5;
/** Chromium needs at least this much memory to render real pages. */
const BROWSER_MIN_MEMORY_MB = 2048;
/** /tmp for the unpacked Chromium (~180 MB), its profile and cache. */
const BROWSER_EPHEMERAL_MB = 1024;
const DEFAULT_EPHEMERAL_MB = 512;
/**
 * API Gateway's default integration timeout. Streamed integrations (all of ours) may be set up to
 * 15 minutes without a quota increase; buffered ones only with one.
 */
export const DEFAULT_INTEGRATION_TIMEOUT_SECONDS = 29;

/** Own runtimes of the functions that run no catalog operation. */
const OWN_RUNTIME: Readonly<Record<Exclude<FunctionKind, RunsOperations>, Runtime>> = {
  mcp: { timeoutSeconds: MCP_DEADLINE_SECONDS + LAMBDA_MARGIN_SECONDS, memoryMb: 512 },
  pages: { timeoutSeconds: 10, memoryMb: 256 },
  // WebAuthn verification and the account's ledger pages: a little more than the static pages.
  console: { timeoutSeconds: 10, memoryMb: 512 },
  // oidc-provider's endpoints: ES256 signing, and a Client ID Metadata Document fetched within its own
  // short deadline (oauth/client-metadata-fetch.ts).
  oauth: { timeoutSeconds: 10, memoryMb: 512 },
  // A scan of every balance item: generous, it runs every 5 minutes with nobody waiting.
  // Settlement, then the batch sweep (each unfinished batch, and re-sending a stalled one's items).
  reconcile: { timeoutSeconds: 120, memoryMb: 512 },
  // A create reads, checks and writes up to BATCH_MAX_ITEMS items (10 MB), then sends one message per
  // item; its route is streamed, so the integration waits past 29 s.
  batches: { timeoutSeconds: 60, memoryMb: 1024 },
};

/** The kinds whose runtime follows their operations' deadlines and memory. */
type RunsOperations = 'operation' | 'tool-group' | 'batch-consumer';
const runsOperations = (kind: FunctionKind): kind is RunsOperations =>
  kind === 'operation' || kind === 'tool-group' || kind === 'batch-consumer';

interface Runtime {
  timeoutSeconds: number;
  memoryMb: number;
}

export interface FunctionPlan {
  name: string;
  kind: FunctionKind;
  operations: readonly OperationDefinition[];
  /** The nested stack holding the function: its family, `mcp` (with the tool groups) or `service`. */
  stack: string;
  architecture: 'arm64' | 'x86_64';
  memoryMb: number;
  timeoutSeconds: number;
  ephemeralStorageMb: number;
  needs: ReadonlySet<RuntimeNeed>;
  /** Reads profiles, companies, posts, jobs or searches: gets DATASET (or the upstream settings). */
  readsData: boolean;
  tableGrants: readonly TableGrant[];
}

const byId = new Map<string, OperationDefinition>(catalog.map((operation) => [operation.id, operation]));

function operationsOf(spec: FunctionSpec): OperationDefinition[] {
  return spec.operations.map((id) => {
    const operation = byId.get(id);
    if (!operation) throw new Error(`Function ${spec.name} names ${id}, which is not in the catalog.`);
    return operation;
  });
}

function stackOf(spec: FunctionSpec, operations: readonly OperationDefinition[]): string {
  // A batch consumer sits with its family's functions: the SMTP one shares the email egress VPC.
  if (spec.kind === 'operation' || spec.kind === 'batch-consumer')
    return (operations[0] as OperationDefinition).family;
  return spec.kind === 'tool-group' || spec.kind === 'mcp' ? 'mcp' : 'service';
}

/** A tool group's function runs any of its operations: the largest memory and longest deadline. */
function runtimeOf(spec: FunctionSpec, operations: readonly OperationDefinition[]): Runtime {
  if (!runsOperations(spec.kind)) return OWN_RUNTIME[spec.kind];
  const deadlineMs = Math.max(...operations.map((operation) => operation.runtime.timeoutMs));
  return {
    timeoutSeconds: Math.ceil(deadlineMs / 1000) + LAMBDA_MARGIN_SECONDS,
    memoryMb: Math.max(...operations.map((operation) => operation.runtime.memoryMb)),
  };
}

export function planFunction(spec: FunctionSpec): FunctionPlan {
  const operations = operationsOf(spec);
  const needs = new Set(operations.flatMap((operation) => operation.runtime.needs));
  const { browser } = spec;
  const runtime = runtimeOf(spec, operations);
  return {
    name: spec.name,
    kind: spec.kind,
    operations,
    stack: stackOf(spec, operations),
    // @sparticuz/chromium ships an x86_64 binary only (FIELD-NOTES); everything else runs on Graviton.
    architecture: browser ? 'x86_64' : 'arm64',
    memoryMb: browser ? Math.max(runtime.memoryMb, BROWSER_MIN_MEMORY_MB) : runtime.memoryMb,
    timeoutSeconds: runtime.timeoutSeconds,
    ephemeralStorageMb: browser ? BROWSER_EPHEMERAL_MB : DEFAULT_EPHEMERAL_MB,
    needs,
    readsData: spec.dataset,
    tableGrants: tableGrants(spec.kind, operations),
  };
}

/** Every deployed function, in `deployedFunctions()` order. */
export function functionPlans(): FunctionPlan[] {
  return deployedFunctions().map(planFunction);
}

/** The integration timeout of a route to `plan`: raised to the function's timeout where 29 s is short. */
export function integrationTimeoutSeconds(plan: FunctionPlan): number {
  return Math.max(DEFAULT_INTEGRATION_TIMEOUT_SECONDS, plan.timeoutSeconds + 1);
}
