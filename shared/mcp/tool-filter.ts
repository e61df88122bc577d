/**
 * Tool filtering, beyond the spec: `?tools=a,b` and `?toolsets=profiles,companies` (the catalog's
 * tool groups) narrow what tools/list shows and tools/call accepts on one connection, so an agent
 * pays context only for the tools it uses; `?toolsets=discover` is the compact mode
 * (discover-tools.ts) with the account's own tools. Both may be given (the union is served); without either,
 * every tool of the spec's catalog is, and a tool beyond it (`mcpListing: 'on-request'`) only when a
 * filter names it or its group. Names arrive from the request, so they are only looked up in Maps
 * and Sets.
 */
import { DISCOVER_TOOLSET } from './discover-tools.js';
import type { ToolEntry } from './tool-catalog.js';

/** The group the compact mode serves beside its two tools: an agent's own balance and usage. */
const DISCOVER_COMPANION_GROUP = 'account';

export type ToolFilterResult =
  | {
      ok: true;
      tools: ReadonlyMap<string, ToolEntry>;
      /** `?toolsets=discover`: find_operation and run_operation are served too (discover-tools.ts). */
      discover: boolean;
    }
  | { ok: false; parameter: 'tools' | 'toolsets'; unknown: string[]; valid: string[] };

export function filterTools(all: ReadonlyMap<string, ToolEntry>, params: URLSearchParams): ToolFilterResult {
  if (!params.has('tools') && !params.has('toolsets'))
    return {
      ok: true,
      tools: new Map([...all].filter(([, entry]) => entry.operation.definition.mcpListing !== 'on-request')),
      discover: false,
    };
  const groups = new Set([...all.values()].map((entry) => entry.operation.definition.group));
  groups.add(DISCOVER_TOOLSET);
  const toolNames = namesIn(params, 'tools');
  const groupNames = namesIn(params, 'toolsets');
  const unknownTools = toolNames.filter((name) => !all.has(name));
  if (unknownTools.length > 0 || (params.has('tools') && toolNames.length === 0)) {
    return { ok: false, parameter: 'tools', unknown: unknownTools, valid: [...all.keys()] };
  }
  const unknownGroups = groupNames.filter((name) => !groups.has(name));
  if (unknownGroups.length > 0 || (params.has('toolsets') && groupNames.length === 0)) {
    return { ok: false, parameter: 'toolsets', unknown: unknownGroups, valid: [...groups] };
  }
  const wantedTools = new Set(toolNames);
  const wantedGroups = new Set(groupNames);
  const discover = wantedGroups.has(DISCOVER_TOOLSET);
  if (discover) wantedGroups.add(DISCOVER_COMPANION_GROUP);
  const tools = new Map(
    [...all].filter(
      ([name, entry]) => wantedTools.has(name) || wantedGroups.has(entry.operation.definition.group),
    ),
  );
  return { ok: true, tools, discover };
}

/** Every comma-separated name under the parameter, however often it is repeated; blanks dropped. */
function namesIn(params: URLSearchParams, parameter: string): string[] {
  return params
    .getAll(parameter)
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
