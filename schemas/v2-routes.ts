/**
 * The /api/v2 endpoint family as a mapping onto the catalog: each v2 route names the catalog
 * operation it runs and which of that operation's identifiers it fills (from a path parameter, or
 * from the query where the listing puts it there). v2 is another transport over the same operations,
 * so nothing here declares data, prices or parameters of its own: those come from the catalog entry
 * (operations of the listing that v1 lacks are catalog entries too, without v1 paths).
 *
 * The routes are derived from the entries: an entry's `v2` paths are routes of the listing; an
 * entry without any is an extension, under /api/v2/ext/, at the path derived from its v1 path (a
 * lookup of one profile, company or post by the identifier the listing puts in its paths takes the
 * listing's record path: `/v1/companies/similar/by-slug` → `/api/v2/ext/companies/{universal_name}/similar`;
 * any other takes its v1 path: `/v1/emails/verify` → `/api/v2/ext/emails/verify`).
 */
import type { OperationDefinition, OperationVariant, V2Path } from './operation-definition.js';
import { familyRecordPaths } from './v2-paths.js';

export const V2_PREFIX = '/api/v2';
export const V2_EXTENSION_PREFIX = `${V2_PREFIX}/ext`;

export interface V2Route extends V2Path {
  /** The whole path, OpenAPI style: `/api/v2/profiles/{public_identifier}/positions`. */
  path: string;
  operation: OperationDefinition;
  /** Under /api/v2/ext/: a lookup the v2 listing has no endpoint for. */
  extension: boolean;
}

/** The extension path of an entry without v2 paths, from its v1 path. */
function extensionPath(definition: OperationDefinition): V2Path | undefined {
  const [first] = definition.variants;
  if (!first) return undefined;
  const record = familyRecordPaths[definition.family];
  const byRecord = record && definition.variants.find((variant) => variant.identifier === record.identifier);
  if (record && byRecord) {
    const name = byRecord.path.replace(`/v1/${definition.family}/`, '').replace(/\/by-[^/]+$/, '');
    return {
      path: `${record.prefix}/${name}`,
      identifier: record.identifier,
      pathParameter: record.pathParameter,
    };
  }
  return {
    path: first.path.replace(/^\/v1/, ''),
    ...(first.identifier ? { identifier: first.identifier } : {}),
  };
}

/** Every v2 route of the operations given, in catalog order: the listing's first, then the extensions. */
export function v2RoutesOf(operations: readonly OperationDefinition[]): V2Route[] {
  const listed = operations.flatMap((operation) =>
    (operation.v2 ?? []).map((route) => ({
      ...route,
      path: `${V2_PREFIX}${route.path}`,
      operation,
      extension: false,
    })),
  );
  const extensions = operations.flatMap((operation) => {
    if (operation.v2 && operation.v2.length > 0) return [];
    const route = extensionPath(operation);
    return route
      ? [{ ...route, path: `${V2_EXTENSION_PREFIX}${route.path}`, operation, extension: true }]
      : [];
  });
  return [...listed, ...extensions];
}

/**
 * The path variant whose identifier rules a route follows: the v1 path of the same identifier, or,
 * for an operation without v1 paths, the route itself.
 */
export function variantOf(route: V2Route): OperationVariant {
  const { variants } = route.operation;
  return (
    variants.find((variant) => variant.identifier === route.identifier) ??
    variants[0] ?? { path: route.path, ...(route.identifier ? { identifier: route.identifier } : {}) }
  );
}
