/**
 * The functions a deployment runs, derived from the catalog (plain data, like the catalog): one per
 * operation (its v1 and /api/v2 paths), the /mcp endpoint, one per MCP tool group (invoked by /mcp
 * only), the service's own pages (OpenAPI, /docs, the Protected Resource Metadata, /healthz and the
 * not-found catch-all), and the scheduled reconcile. `npm run build` writes each bundle to
 * dist/functions/<name>/index.mjs; infra/ wires each name to its routes. Names are Lambda-safe
 * (letters, digits, hyphens).
 */
import { catalog, type OperationDefinition, type OperationId } from './catalog.js';

export type FunctionKind = 'operation' | 'mcp' | 'tool-group' | 'pages' | 'reconcile';

export interface FunctionSpec {
  name: string;
  kind: FunctionKind;
  /** The operations the function runs (an operation's own, or a tool group's). */
  operations: readonly OperationId[];
}

/** `profiles.details` → `profiles-details`. */
export const operationFunctionName = (id: OperationId | string) => id.replace(/\./g, '-');
export const toolGroupFunctionName = (group: string) => `mcp-group-${group}`;
export const MCP_FUNCTION = 'mcp';
export const PAGES_FUNCTION = 'pages';
export const RECONCILE_FUNCTION = 'reconcile';

const operations = catalog as readonly OperationDefinition[];

/** The MCP tool groups and the operations of each (only operations with a tool). */
export function toolGroups(): Map<string, OperationId[]> {
  const groups = new Map<string, OperationId[]>();
  for (const operation of operations) {
    if (!operation.mcpTool) continue;
    const members = groups.get(operation.group) ?? [];
    members.push(operation.id as OperationId);
    groups.set(operation.group, members);
  }
  return groups;
}

export function deployedFunctions(): FunctionSpec[] {
  return [
    ...operations.map((operation) => ({
      name: operationFunctionName(operation.id),
      kind: 'operation' as const,
      operations: [operation.id as OperationId],
    })),
    { name: MCP_FUNCTION, kind: 'mcp', operations: [] },
    ...[...toolGroups()].map(([group, members]) => ({
      name: toolGroupFunctionName(group),
      kind: 'tool-group' as const,
      operations: members,
    })),
    { name: PAGES_FUNCTION, kind: 'pages', operations: [] },
    { name: RECONCILE_FUNCTION, kind: 'reconcile', operations: [] },
  ];
}
