/**
 * Job lookups: search by keyword, and details by URL.
 */
import * as z from 'zod';
import { jobUrlParam, keywordsParam } from '../parameters.js';
import { jobDetailsSchema, jobSummarySchema } from '../records.js';
import { byQuery } from '../v2-paths.js';
import { byIdentifier, dataLookup, v2OnlyLookup } from './data-lookup.js';
import { search } from './search.js';

export const jobSearch = search({
  id: 'jobs.search',
  v2: [byQuery('/jobs/search')],
  examples: { keywords: 'engineer' },
  family: 'jobs',
  path: '/v1/jobs/search',
  list: 'jobs',
  item: jobSummarySchema,
  query: { keywords: keywordsParam },
  summary: 'Search jobs by keyword',
  mcpTool: 'search_jobs',
});

export const jobDetails = dataLookup({
  id: 'jobs.details',
  v2: [byQuery('/jobs/detail', 'url')],
  examples: { url: 'https://www.linkedin.com/jobs/view/4081726354' },
  family: 'jobs',
  group: 'jobs',
  summary: 'Job details',
  description: 'A job posting, by its URL.',
  variants: byIdentifier('/v1/jobs/details', ['url']),
  identifiers: ['url'],
  query: z.object({ url: jobUrlParam }),
  data: jobDetailsSchema,
  paging: 'none',
  price: 1,
  mcpTool: 'get_job_details',
});

const facet = z.array(z.object({ value: z.string(), jobs: z.number().int().min(1) }));

/** Of the /api/v2 listing only (no v1 path): what /jobs/search/filters answers. */
export const jobSearchFilters = v2OnlyLookup({
  id: 'jobs.search-filters',
  v2: [byQuery('/jobs/search/filters')],
  examples: { keywords: 'engineer' },
  family: 'jobs',
  group: 'jobs',
  summary: 'Job search filter values',
  description:
    'The values the jobs matching the keywords have, per field (location, company, employmentType, ' +
    'seniority), each with how many of the matching jobs have it, most frequent first; data.matched ' +
    'counts all matching jobs, of which job search answers the first 10. Job search filters by keywords ' +
    'only, so use a value as a keyword, or /companies/{universal_name}/jobs for one company.',
  identifiers: [],
  query: z.object({ keywords: keywordsParam }),
  data: z.object({
    matched: z.number().int().min(0),
    location: facet,
    company: facet,
    employmentType: facet,
    seniority: facet,
  }),
});

export const jobOperations = [jobSearch, jobDetails, jobSearchFilters] as const;
