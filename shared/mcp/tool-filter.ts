/**
 * Tool filtering, beyond the spec: `?tools=a,b` and `?toolsets=profiles,emails` narrow what
 * tools/list shows and tools/call accepts on one connection, so an agent pays context only for the
 * tools it uses. A toolset is a tool group of the catalog (`profiles`, `profile-activity`), or else a
 * family, which serves all its groups (`emails`: `emails-disposable` and `emails-smtp`, kept apart
 * because the SMTP group runs in a VPC on AWS); a group's name wins, so every group keeps its meaning.
 * `?toolsets=discover` is the compact mode (discover-tools.ts) with the account's own tools;
 * `?toolsets=batches` serves the bulk tools (batch-tools.ts) where the process runs batches.
 * Both parameters may be given (the union is served); without either, every tool of the spec's
 * catalog is, and a tool beyond it (`mcpListing: 'on-request'`) only when a filter names it or its
 * toolset. Names arrive from the request, so they are only looked up in Maps and Sets.
 */
import { BATCHES_TOOLSET, batchTools } from './batch-tools.js';
import { DISCOVER_TOOLSET, discoverTools } from './discover-tools.js';
import type { ToolEntry } from './tool-catalog.js';

/** The group the compact mode serves beside its two tools: an agent's own balance and usage. */
const DISCOVER_COMPANION_GROUP = 'account';

export type ToolFilterResult =
  | {
      ok: true;
      tools: ReadonlyMap<string, ToolEntry>;
      /** `?toolsets=discover`: find_operation and run_operation are served too (discover-tools.ts). */
      discover: boolean;
      /** `?toolsets=batches`: start_batch, get_batch and cancel_batch are served too (batch-tools.ts). */
      batches: boolean;
    }
  | { ok: false; parameter: 'tools' | 'toolsets'; unknown: string[]; valid: string[] };

/** What the process serves beyond the catalog's tools: the batches toolset needs a batch worker. */
export interface AdapterToolsets {
  batches: boolean;
}

export function filterTools(
  all: ReadonlyMap<string, ToolEntry>,
  params: URLSearchParams,
  adapter: AdapterToolsets = { batches: false },
): ToolFilterResult {
  if (!params.has('tools') && !params.has('toolsets'))
    return {
      ok: true,
      tools: new Map([...all].filter(([, entry]) => entry.operation.definition.mcpListing !== 'on-request')),
      discover: false,
      batches: false,
    };
  const toolsets = toolsetGroups(all, adapter);
  const toolNames = namesIn(params, 'tools');
  const toolsetNames = namesIn(params, 'toolsets');
  const unknownTools = toolNames.filter((name) => !all.has(name));
  if (unknownTools.length > 0 || (params.has('tools') && toolNames.length === 0)) {
    return { ok: false, parameter: 'tools', unknown: unknownTools, valid: [...all.keys()] };
  }
  const unknownToolsets = toolsetNames.filter((name) => !toolsets.has(name));
  if (unknownToolsets.length > 0 || (params.has('toolsets') && toolsetNames.length === 0)) {
    return { ok: false, parameter: 'toolsets', unknown: unknownToolsets, valid: [...toolsets.keys()] };
  }
  const wantedTools = new Set(toolNames);
  const wantedGroups = new Set(toolsetNames.flatMap((name) => [...(toolsets.get(name) ?? [])]));
  const discover = toolsetNames.includes(DISCOVER_TOOLSET);
  const batches = toolsetNames.includes(BATCHES_TOOLSET) && adapter.batches;
  const tools = new Map(
    [...all].filter(
      ([name, entry]) => wantedTools.has(name) || wantedGroups.has(entry.operation.definition.group),
    ),
  );
  return { ok: true, tools, discover, batches };
}

/** Every toolset with the tools a connection naming it is served, as the filter itself serves them. */
export function toolsetListing(
  all: ReadonlyMap<string, ToolEntry>,
  adapter: AdapterToolsets = { batches: false },
): { name: string; tools: string[] }[] {
  return [...toolsetGroups(all, adapter).keys()].map((name) => {
    const served = filterTools(all, new URLSearchParams({ toolsets: name }), adapter);
    if (!served.ok) throw new Error(`The toolset ${name} is not served.`);
    const adapterTools = [
      ...(served.discover ? discoverTools : []),
      ...(served.batches ? batchTools : []),
    ].map((tool) => tool.name);
    return { name, tools: [...adapterTools, ...served.tools.keys()] };
  });
}

/**
 * Every toolset name with the tool groups it serves, in catalog order: each group under its own
 * name, then each family whose name no group takes, under which all its groups are served, then
 * the compact mode with its companion group, then the batches toolset (no group) where served.
 */
function toolsetGroups(
  all: ReadonlyMap<string, ToolEntry>,
  adapter: AdapterToolsets,
): Map<string, ReadonlySet<string>> {
  const definitions = [...all.values()].map((entry) => entry.operation.definition);
  const toolsets = new Map<string, Set<string>>(
    definitions.map((definition) => [definition.group, new Set([definition.group])]),
  );
  const families = new Map<string, Set<string>>();
  for (const { family, group } of definitions) {
    if (toolsets.has(family)) continue;
    const groups = families.get(family) ?? new Set<string>();
    groups.add(group);
    families.set(family, groups);
  }
  return new Map([
    ...toolsets,
    ...families,
    [DISCOVER_TOOLSET, new Set([DISCOVER_COMPANION_GROUP])],
    ...(adapter.batches ? [[BATCHES_TOOLSET, new Set<string>()] as const] : []),
  ]);
}

/** Every comma-separated name under the parameter, however often it is repeated; blanks dropped. */
function namesIn(params: URLSearchParams, parameter: string): string[] {
  return params
    .getAll(parameter)
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
