/**
 * Job lookups: search by keyword, and details by URL.
 */
import { z } from 'zod';
import { jobUrlParam, keywordsParam } from '../parameters.js';
import { jobDetailsSchema, jobSummarySchema } from '../records.js';
import { byIdentifier, dataLookup } from './data-lookup.js';
import { search } from './search.js';

export const jobSearch = search({
  id: 'jobs.search',
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

export const jobOperations = [jobSearch, jobDetails] as const;
