/**
 * Searches other than companies and jobs (schools, people, all results, posts, locations,
 * industries, service categories, typeahead). Each answers its first ten results by relevance; an
 * empty result is a success, never a 404.
 */
import * as z from 'zod';
import {
  COMPANY_PUBLIC_ID,
  companySizeCodes,
  hashtagParam,
  keywordsParam,
  queryParam,
} from '../parameters.js';
import {
  industrySchema,
  locationSchema,
  postSchema,
  profileSummarySchema,
  schoolSchema,
  searchAllItemSchema,
  serviceCategorySchema,
  typeaheadItemSchema,
} from '../records.js';
import { byPathParameter, byQuery } from '../v2-paths.js';
import { dataLookup, type ListLookupSpec, listOf, v2OnlyLookup } from './data-lookup.js';

const companyFilter = (name: string) =>
  z.string().regex(COMPANY_PUBLIC_ID, `${name} takes a company publicId (data.publicId of company details)`);

/** A search answering its first ten results as one list. */
export function search<const Id extends string, const Name extends string, const Q extends z.ZodRawShape>(
  spec: ListLookupSpec<Id, Name> & { family?: 'search' | 'jobs'; query: Q; description?: string },
) {
  return dataLookup({
    id: spec.id,
    family: spec.family ?? 'search',
    group: spec.family ?? 'search',
    summary: spec.summary,
    description: `${spec.description ?? spec.summary}. Up to 10 results by relevance, as data.${spec.list}; no match is an empty list.`,
    variants: [{ path: spec.path }],
    identifiers: [],
    query: z.object(spec.query),
    data: listOf(spec.list, spec.item),
    paging: 'none',
    price: 1,
    mcpTool: spec.mcpTool,
    v2: spec.v2,
    examples: spec.examples,
  });
}

export const schoolSearch = search({
  id: 'search.schools',
  examples: { keywords: 'technology' },
  path: '/v1/search/schools',
  list: 'schools',
  item: schoolSchema,
  query: { keywords: keywordsParam },
  summary: 'Search schools by keyword',
  mcpTool: 'search_schools_by_keyword',
});
export const peopleSearch = search({
  id: 'search.people',
  v2: [byQuery('/search/people')],
  examples: { keywords: 'engineer', currentCompany: '2461837', pastCompany: '3318905' },
  path: '/v1/search/people',
  list: 'people',
  item: profileSummarySchema,
  query: {
    keywords: keywordsParam,
    currentCompany: companyFilter('currentCompany').optional(),
    pastCompany: companyFilter('pastCompany').optional(),
  },
  summary: 'Search people by keyword',
  description:
    'Search people by keyword. currentCompany and pastCompany take a company publicId; both at once narrow the ' +
    'result to people who match both, rather than combining current and former staff',
  mcpTool: 'search_people_by_keyword',
});
export const allSearch = search({
  id: 'search.all',
  v2: [byQuery('/search/all')],
  examples: { keywords: 'Northwind' },
  path: '/v1/search/all',
  list: 'results',
  item: searchAllItemSchema,
  query: { keywords: keywordsParam },
  summary: 'Search all result types by keyword (people, companies, schools, posts, jobs)',
  mcpTool: 'search_all_results_by_keyword',
});
export const hashtagPostSearch = search({
  id: 'search.posts-by-hashtag',
  v2: [byPathParameter('/search/hashtags/{hashtag}', 'hashtag', 'hashtag')],
  examples: { hashtag: 'leadership' },
  path: '/v1/search/posts/by-hashtag',
  list: 'posts',
  item: postSchema,
  query: { hashtag: hashtagParam },
  summary: 'Search posts by hashtag (with or without the leading #)',
  mcpTool: 'search_posts_by_hashtag',
});
export const postSearch = search({
  id: 'search.posts',
  v2: [byQuery('/search/posts')],
  examples: { keywords: 'leadership' },
  path: '/v1/search/posts',
  list: 'posts',
  item: postSchema,
  query: { keywords: keywordsParam },
  summary: 'Search posts by keyword',
  mcpTool: 'search_posts_by_keyword',
});
export const locationSearch = search({
  id: 'search.locations',
  v2: [byQuery('/search/locations')],
  examples: { keywords: 'Berlin' },
  path: '/v1/search/locations',
  list: 'locations',
  item: locationSchema,
  query: { keywords: keywordsParam },
  summary: 'Search locations by keyword; their ids are the company search location filter',
  mcpTool: 'search_locations_by_keyword',
});
export const industrySearch = search({
  id: 'search.industries',
  examples: { query: 'Financial Services' },
  path: '/v1/search/industries',
  list: 'industries',
  item: industrySchema,
  query: { query: queryParam },
  summary: 'Search industries; their ids are the company search industry filter',
  mcpTool: 'search_industries_by_keyword',
});
export const serviceCategories = search({
  id: 'search.service-categories',
  path: '/v1/search/service-categories',
  list: 'serviceCategories',
  item: serviceCategorySchema,
  query: {},
  summary: 'Service categories',
  description: 'The service categories of the source network',
  mcpTool: 'search_service_categories',
});
export const typeahead = search({
  id: 'search.typeahead',
  v2: [byQuery('/search/typeahead')],
  examples: { query: 'North' },
  path: '/v1/search/typeahead',
  list: 'items',
  item: typeaheadItemSchema,
  query: { query: queryParam },
  summary: 'Typeahead suggestions of people, companies, schools, locations and industries',
  mcpTool: 'get_search_typeahead',
});
/** Of the /api/v2 listing only (no v1 path): what /search/filters answers. */
export const searchFilters = v2OnlyLookup({
  id: 'search.filters',
  v2: [byQuery('/search/filters')],
  family: 'search',
  group: 'search',
  summary: 'Company search filter values',
  description:
    'Every value the company search filters accept, named by filter: location and industry (ids of the ' +
    'locations and industries some company of the data has, by name), companySize (codes with their ' +
    'source-provided employee ranges) and hasJobs. People search filters by company publicId instead ' +
    '(data.publicId of company details).',
  identifiers: [],
  query: z.object({}),
  data: z.object({
    location: z.array(locationSchema),
    industry: z.array(industrySchema),
    companySize: z.array(z.object({ code: z.enum(companySizeCodes), range: z.string() })),
    hasJobs: z.array(z.literal('true')),
  }),
});

export const searchOperations = [
  schoolSearch,
  peopleSearch,
  allSearch,
  hashtagPostSearch,
  postSearch,
  locationSearch,
  industrySearch,
  serviceCategories,
  typeahead,
  searchFilters,
] as const;
