/**
 * Requests for the /api/v2 routes, derived from the same sample inputs as the v1 and MCP tests: the
 * identifier a route fills goes into its path (or its query), every other parameter into the query,
 * under the v1 names. The v1 request of the same lookup comes along, for comparing the two families.
 */
import { catalog } from '../../schemas/catalog.js';
import { type V2Route, variantOf } from '../../schemas/v2-routes.js';
import { identifierValues, otherParameters } from './sample-inputs.js';

export interface V2SampleRequest {
  /** The v2 URL (path and query). */
  url: string;
  /** The v1 URL of the same lookup; absent for operations of the v2 listing only. */
  v1Url?: string;
}

const query = (parameters: Record<string, string>) => {
  const text = new URLSearchParams(parameters).toString();
  return text ? `?${text}` : '';
};

/** The request of a route; `values` replaces the identifiers (e.g. with ones that match nothing). */
export function v2SampleRequest(
  route: V2Route,
  values: Record<string, Record<string, string>> = identifierValues,
): V2SampleRequest {
  const operation = route.operation;
  const parameters: Record<string, string> = { ...otherParameters(operation) };
  if (route.identifier && operation.identifiers.includes(route.identifier))
    parameters[route.identifier] = values[operation.family]?.[route.identifier] as string;
  const v1Url = operation.variants.length > 0 ? `${variantOf(route).path}${query(parameters)}` : undefined;
  if (!route.pathParameter || !route.identifier) return { url: `${route.path}${query(parameters)}`, v1Url };
  const { [route.identifier]: inPath = '', ...rest } = parameters;
  const path = route.path.replace(`{${route.pathParameter}}`, encodeURIComponent(inPath));
  return { url: `${path}${query(rest)}`, v1Url };
}

/** Catalog operations whose sample inputs need no outside servers (mail servers, a browser). */
export const selfContained = new Set(
  catalog.filter((operation) => !operation.runtime.needs.length).map((operation) => operation.id as string),
);
