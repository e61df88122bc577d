/**
 * The functions a deployment runs, derived from the catalog (plain data, like the catalog): one per
 * operation (its v1 and /api/v2 paths), the /mcp endpoint, one per MCP tool group (invoked by /mcp
 * only), the service's own pages (OpenAPI, /docs, the Protected Resource Metadata, /healthz and the
 * not-found catch-all, and the console's assets), the console's pages (/console), the built-in OAuth
 * authorization server's endpoints (/oauth and its metadata), the scheduled reconcile (which also sweeps
 * batches), the batch resource (/v1/batches, which enqueues each item on its group's SQS queue), and one
 * batch consumer per group of batchable operations (fed by that queue; docs/aws.md). `npm run build` writes each bundle to
 * dist/functions/<name>/index.mjs (handler `index.handler`); infra/ wires each name to its routes.
 * Names are Lambda-safe (letters, digits, hyphens). Each directory is the function's whole code asset:
 * data functions carry the dataset database beside the bundle, website functions Chromium's files.
 */
import { catalog, type OperationId } from './catalog.js';
import {
  BATCHES_FUNCTION,
  batchConsumerFunctionName,
  batchGroupMembersOf,
  CONSOLE_FUNCTION,
  DATA_FAMILIES,
  type FunctionKind,
  type FunctionSpec,
  MCP_FUNCTION,
  OAUTH_FUNCTION,
  operationFunctionName,
  PAGES_FUNCTION,
  RECONCILE_FUNCTION,
  toolGroupFunctionName,
  toolGroupMembersOf,
  toolGroupsOf,
} from './function-conventions.js';
import type { OperationDefinition } from './operation-definition.js';

// Importers of the plan also read the conventions through it (infra, the build, tests).
export * from './function-conventions.js';

/** The MCP tool groups of the catalog (or of `operations`) and the operations of each. */
export const toolGroupMembers = (operations: readonly OperationDefinition[] = catalog) =>
  toolGroupMembersOf(operations);
/** The MCP tool groups of the catalog (or of `operations`) and the ids of their operations. */
export const toolGroups = (operations: readonly OperationDefinition[] = catalog) => toolGroupsOf(operations);
/** The batch groups of the catalog (or of `operations`) and the operations of each. */
export const batchGroupMembers = (operations: readonly OperationDefinition[] = catalog) =>
  batchGroupMembersOf(operations);

/** What a function carries beside its bundle, from the operations it runs. */
function assets(definitions: readonly OperationDefinition[]): Pick<FunctionSpec, 'dataset' | 'browser'> {
  return {
    dataset: definitions.some((definition) => DATA_FAMILIES.includes(definition.family)),
    browser: definitions.some((definition) => definition.runtime.needs.includes('browser')),
  };
}

/** A function running no operation of its own carries nothing beside its bundle. */
const plain = (name: string, kind: FunctionKind): FunctionSpec => ({
  name,
  kind,
  operations: [],
  dataset: false,
  browser: false,
});

export function deployedFunctions(operations: readonly OperationDefinition[] = catalog): FunctionSpec[] {
  return [
    ...operations.map((operation) => ({
      name: operationFunctionName(operation.id),
      kind: 'operation' as const,
      operations: [operation.id as OperationId],
      ...assets([operation]),
    })),
    plain(MCP_FUNCTION, 'mcp'),
    ...[...toolGroupMembersOf(operations)].map(([group, members]) => ({
      name: toolGroupFunctionName(group),
      kind: 'tool-group' as const,
      operations: members.map((member) => member.id as OperationId),
      ...assets(members),
    })),
    plain(PAGES_FUNCTION, 'pages'),
    plain(CONSOLE_FUNCTION, 'console'),
    plain(OAUTH_FUNCTION, 'oauth'),
    plain(RECONCILE_FUNCTION, 'reconcile'),
    plain(BATCHES_FUNCTION, 'batches'),
    ...[...batchGroupMembersOf(operations)].map(([group, members]) => ({
      name: batchConsumerFunctionName(group),
      kind: 'batch-consumer' as const,
      operations: members.map((member) => member.id as OperationId),
      ...assets(members),
    })),
  ];
}
