/**
 * The shapes of /api/v2 paths, for catalog entries to name the v2 listing's routes that run them
 * (`v2: [profilePath('/positions')]`) and for schemas/v2-routes.ts to derive the path of an
 * extension: a v1 lookup the listing lacks. The listing addresses a profile, a company or a post by
 * a path parameter that fills one identifier of the family; everything else comes in the query.
 */
import type { Family, V2Path } from './operation-definition.js';

/** The path prefix and parameter by which the listing addresses one record of a family. */
export interface FamilyRecordPath {
  prefix: string;
  identifier: string;
  pathParameter: string;
}

export const familyRecordPaths: Partial<Record<Family, FamilyRecordPath>> = {
  profiles: {
    prefix: '/profiles/{public_identifier}',
    identifier: 'username',
    pathParameter: 'public_identifier',
  },
  companies: { prefix: '/companies/{universal_name}', identifier: 'slug', pathParameter: 'universal_name' },
  posts: { prefix: '/posts/{post_slug}', identifier: 'slug', pathParameter: 'post_slug' },
};

function recordPath(family: 'profiles' | 'companies' | 'posts', suffix: string): V2Path {
  const { prefix, identifier, pathParameter } = familyRecordPaths[family] as FamilyRecordPath;
  return { path: `${prefix}${suffix}`, identifier, pathParameter };
}

/** `/profiles/{public_identifier}<suffix>`, filling `username`. */
export const profilePath = (suffix: string) => recordPath('profiles', suffix);
/** `/companies/{universal_name}<suffix>`, filling `slug`. */
export const companyPath = (suffix: string) => recordPath('companies', suffix);
/** `/posts/{post_slug}<suffix>`, filling `slug`. */
export const postPath = (suffix: string) => recordPath('posts', suffix);

/** A path whose identifier (if any) comes in the query. */
export const byQuery = (path: string, identifier?: string): V2Path => ({
  path,
  ...(identifier ? { identifier } : {}),
});

/** A path whose one parameter fills the identifier of the same or another name. */
export const byPathParameter = (path: string, identifier: string, pathParameter: string): V2Path => ({
  path,
  identifier,
  pathParameter,
});
