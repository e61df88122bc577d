/**
 * The /api/v2 endpoint family as a mapping onto the catalog: each v2 route names the catalog
 * operation it runs and which of that operation's identifiers it fills (from a path parameter, or
 * from the query where the listing puts it there). v2 is another transport over the same operations,
 * so nothing here declares data, prices or parameters of its own: those come from the catalog entry
 * (operations of the listing that v1 lacks are catalog entries too, without v1 paths).
 * Paths under /api/v2/ext/ are extensions: v1 lookups the v2 listing lacks. The route adapter, the
 * OpenAPI document and the docs tables all read this one list.
 */
import { catalog, type OperationDefinition, type OperationId, type OperationVariant } from './catalog.js';

export const V2_PREFIX = '/api/v2';
export const V2_EXTENSION_PREFIX = `${V2_PREFIX}/ext`;

export interface V2Route {
  /** The path, OpenAPI style: `/api/v2/profiles/{public_identifier}/positions`. */
  path: string;
  operation: OperationId;
  /** The operation's identifier this route fills; absent on searches, which take none. */
  identifier?: string;
  /** The path parameter that carries the identifier; absent when it comes in the query. */
  pathParameter?: string;
}

const profilePath = (suffix: string, operation: OperationId): V2Route => ({
  path: `/profiles/{public_identifier}${suffix}`,
  operation,
  identifier: 'username',
  pathParameter: 'public_identifier',
});
const companyPath = (suffix: string, operation: OperationId): V2Route => ({
  path: `/companies/{universal_name}${suffix}`,
  operation,
  identifier: 'slug',
  pathParameter: 'universal_name',
});
const postPath = (suffix: string, operation: OperationId): V2Route => ({
  path: `/posts/{post_slug}${suffix}`,
  operation,
  identifier: 'slug',
  pathParameter: 'post_slug',
});
const byQuery = (path: string, operation: OperationId, identifier?: string): V2Route => ({
  path,
  operation,
  ...(identifier ? { identifier } : {}),
});

/** The routes of the v2 listing that an operation of the catalog serves. */
const listed: readonly V2Route[] = [
  byQuery('/profiles/detail', 'profiles.details', 'url'),
  {
    path: '/profiles/id/{profile_id}',
    operation: 'profiles.details',
    identifier: 'publicId',
    pathParameter: 'profile_id',
  },
  profilePath('', 'profiles.details'),
  profilePath('/positions', 'profiles.experience'),
  profilePath('/education', 'profiles.education'),
  profilePath('/skills', 'profiles.skills'),
  profilePath('/certifications', 'profiles.certifications'),
  profilePath('/organizations', 'profiles.organizations'),
  profilePath('/languages', 'profiles.languages'),
  profilePath('/courses', 'profiles.courses'),
  profilePath('/volunteer-experience', 'profiles.volunteer-experience'),
  profilePath('/honors', 'profiles.honors'),
  profilePath('/interests/companies', 'profiles.company-interests'),
  profilePath('/contact', 'profiles.contact'),
  profilePath('/counts', 'profiles.counts'),
  profilePath('/positions/top', 'profiles.top-positions'),
  profilePath('/sections', 'profiles.sections'),
  profilePath('/related/follow-recommendations', 'profiles.similar'),
  profilePath('/activity/latest', 'profiles.latest-activity'),
  profilePath('/posts', 'profiles.posts'),
  profilePath('/comments', 'profiles.comments'),
  profilePath('/reactions', 'profiles.reactions'),
  byQuery('/companies/by-domain', 'companies.search-by-domain'),
  byQuery('/companies/detail', 'companies.details', 'url'),
  {
    path: '/companies/id/{company_id}',
    operation: 'companies.details',
    identifier: 'publicId',
    pathParameter: 'company_id',
  },
  companyPath('', 'companies.details'),
  companyPath('/posts', 'companies.posts'),
  companyPath('/employees', 'companies.people'),
  companyPath('/employee-filters', 'companies.employee-filters'),
  companyPath('/jobs', 'companies.jobs'),
  companyPath('/jobs/count', 'companies.job-count'),
  companyPath('/insights', 'companies.insights'),
  companyPath('/products', 'companies.products'),
  byQuery('/search/companies', 'companies.search'),
  byQuery('/search/people', 'search.people'),
  byQuery('/search/posts', 'search.posts'),
  {
    path: '/search/hashtags/{hashtag}',
    operation: 'search.posts-by-hashtag',
    identifier: 'hashtag',
    pathParameter: 'hashtag',
  },
  byQuery('/search/all', 'search.all'),
  byQuery('/search/filters', 'search.filters'),
  byQuery('/search/typeahead', 'search.typeahead'),
  byQuery('/search/locations', 'search.locations'),
  byQuery('/jobs/search', 'jobs.search'),
  byQuery('/jobs/search/filters', 'jobs.search-filters'),
  byQuery('/jobs/detail', 'jobs.details', 'url'),
  byQuery('/posts/detail', 'posts.details', 'url'),
  postPath('/comments', 'posts.comments'),
  postPath('/reactions', 'posts.reactions'),
];

/** v1 lookups the listing has no endpoint for, under /api/v2/ext/. */
const extensions: readonly V2Route[] = [
  companyPath('/similar', 'companies.similar'),
  byQuery('/search/schools', 'search.schools'),
  byQuery('/search/industries', 'search.industries'),
  byQuery('/search/service-categories', 'search.service-categories'),
  byQuery('/emails/disposable', 'emails.disposable'),
  byQuery('/emails/verify', 'emails.verify'),
  byQuery('/emails/find', 'emails.find'),
  byQuery('/websites/content', 'websites.content'),
  byQuery('/websites/text', 'websites.text'),
  byQuery('/websites/emails', 'websites.emails'),
];

export const v2Routes: readonly V2Route[] = [
  ...listed.map((route) => ({ ...route, path: `${V2_PREFIX}${route.path}` })),
  ...extensions.map((route) => ({ ...route, path: `${V2_EXTENSION_PREFIX}${route.path}` })),
];

export function isExtension(route: V2Route): boolean {
  return route.path.startsWith(`${V2_EXTENSION_PREFIX}/`);
}

/** The v2 routes of one operation (a v1 operation may have several, one per identifier). */
export function v2RoutesOf(operation: OperationDefinition): V2Route[] {
  return v2Routes.filter((route) => route.operation === operation.id);
}

/** The catalog entry a route runs. */
export function operationOf(route: V2Route): OperationDefinition {
  const operation = catalog.find((entry) => entry.id === route.operation);
  if (!operation)
    throw new Error(`v2 route ${route.path} names ${route.operation}, which is not in the catalog.`);
  return operation;
}

/**
 * The path variant whose identifier rules a route follows: the v1 path of the same identifier, or,
 * for an operation without v1 paths, the route itself.
 */
export function variantOf(route: V2Route): OperationVariant {
  const { variants } = operationOf(route);
  return (
    variants.find((variant) => variant.identifier === route.identifier) ??
    variants[0] ?? { path: route.path, ...(route.identifier ? { identifier: route.identifier } : {}) }
  );
}
