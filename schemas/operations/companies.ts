/**
 * Company lookups: keyword and domain search (offset-paged), details, and the company's posts,
 * similar companies, people, products and jobs.
 */
import * as z from 'zod';
import { domainNameParam } from '../domain-name.js';
import { companySizeParam, hasJobsParam, idListParam, keywordsParam, offsetParam } from '../parameters.js';
import {
  companyDetailsSchema,
  companySearchItemSchema,
  jobSummarySchema,
  postSchema,
  productSchema,
  profileSummarySchema,
} from '../records.js';
import { byPathParameter, byQuery, companyPath } from '../v2-paths.js';
import {
  byIdentifier,
  companyIdentifiers,
  dataLookup,
  type ListLookupSpec,
  listOf,
  PAGE_SIZE,
  pageSizeHint,
  v2OnlyLookup,
} from './data-lookup.js';

const offsetPaged = `Pages of ${PAGE_SIZE}: set offset to meta.paging.nextOffset (0 to 10000) with the same keywords and filters. Every page is billed, empty ones included.`;

export const companySearch = dataLookup({
  id: 'companies.search',
  v2: [byQuery('/search/companies')],
  examples: {
    keywords: 'Northwind Analytics',
    offset: '0',
    location: '106967730',
    industry: '4',
    companySize: 'F',
    hasJobs: 'true',
  },
  family: 'companies',
  group: 'companies',
  summary: 'Search companies by keyword',
  description:
    'Companies ranked by relevance to the keywords. Filters: location and industry take comma-separated ids ' +
    'from location and industry search (any listed id matches; a location matches branches too), companySize ' +
    'takes codes B to I, hasJobs takes only true; different filters must all match. The result does not carry ' +
    `the company publicId: look the company up by slug for it. ${offsetPaged}`,
  variants: [{ path: '/v1/companies/search' }],
  identifiers: [],
  query: z.object({
    keywords: keywordsParam,
    offset: offsetParam.optional(),
    location: idListParam('location', 10).optional(),
    industry: idListParam('industry', 10).optional(),
    companySize: companySizeParam.optional(),
    hasJobs: hasJobsParam.optional(),
  }),
  parameterHints: { count: pageSizeHint, limit: pageSizeHint },
  data: listOf('companies', companySearchItemSchema),
  paging: 'offset',
  price: 1,
  mcpTool: 'search_companies_by_keyword',
});

export const companyDomainSearch = dataLookup({
  id: 'companies.search-by-domain',
  v2: [byQuery('/companies/by-domain')],
  examples: { domain: 'helixgroup.com', offset: '0' },
  family: 'companies',
  group: 'companies',
  summary: 'Search companies by website domain',
  description: `Companies whose website is on the domain or one of its subdomains. ${offsetPaged}`,
  variants: [{ path: '/v1/companies/search/by-domain' }],
  identifiers: [],
  query: z.object({
    domain: domainNameParam('domain'),
    offset: offsetParam.optional(),
  }),
  parameterHints: { count: pageSizeHint, limit: pageSizeHint },
  data: listOf('companies', companySearchItemSchema),
  paging: 'offset',
  price: 1,
  mcpTool: 'search_companies_by_domain',
});

const COMPANY_IDS = ['slug', 'url', 'publicId'] as const;

export const companyDetails = dataLookup({
  id: 'companies.details',
  v2: [
    companyPath(''),
    byQuery('/companies/detail', 'url'),
    byPathParameter('/companies/id/{company_id}', 'publicId', 'company_id'),
  ],
  family: 'companies',
  group: 'companies',
  summary: 'Company details',
  description:
    'Company page details, including data.publicId, the id people search takes as currentCompany or pastCompany.',
  variants: byIdentifier('/v1/companies/details', COMPANY_IDS),
  identifiers: COMPANY_IDS,
  query: z.object(companyIdentifiers(...COMPANY_IDS)),
  data: companyDetailsSchema,
  paging: 'none',
  price: 1,
  mcpTool: 'get_company_details',
});

/** A list about one company, by slug (and by URL where the tool catalog takes one). */
function companyList<
  const Id extends string,
  const Name extends string,
  const Ids extends readonly ('slug' | 'url')[],
>(spec: ListLookupSpec<Id, Name> & { identifiers: Ids }) {
  return dataLookup({
    id: spec.id,
    family: 'companies',
    group: 'companies',
    summary: spec.summary,
    description: `${spec.summary}: up to ${PAGE_SIZE}, as data.${spec.list}.`,
    variants: byIdentifier(spec.path, spec.identifiers),
    identifiers: spec.identifiers,
    query: z.object(companyIdentifiers(...spec.identifiers)),
    data: listOf(spec.list, spec.item),
    paging: 'none',
    price: 1,
    mcpTool: spec.mcpTool,
    v2: spec.v2,
    examples: spec.examples,
  });
}

export const companyPosts = companyList({
  id: 'companies.posts',
  v2: [companyPath('/posts')],
  path: '/v1/companies/posts',
  list: 'posts',
  item: postSchema,
  summary: "The company's latest posts",
  mcpTool: 'get_company_posts',
  identifiers: ['slug'],
});
export const similarCompanies = companyList({
  id: 'companies.similar',
  path: '/v1/companies/similar',
  list: 'companies',
  item: companySearchItemSchema,
  summary: 'Similar companies',
  mcpTool: 'get_similar_companies',
  identifiers: ['slug', 'url'],
});
export const companyPeople = companyList({
  id: 'companies.people',
  v2: [companyPath('/employees')],
  path: '/v1/companies/people',
  list: 'people',
  item: profileSummarySchema,
  summary: 'People who work at the company',
  mcpTool: 'get_company_people',
  identifiers: ['slug'],
});
export const companyProducts = companyList({
  id: 'companies.products',
  v2: [companyPath('/products')],
  path: '/v1/companies/products',
  list: 'products',
  item: productSchema,
  summary: "The company's products",
  mcpTool: 'get_company_products',
  identifiers: ['slug'],
});
export const companyJobs = companyList({
  id: 'companies.jobs',
  v2: [companyPath('/jobs')],
  path: '/v1/companies/jobs',
  list: 'jobs',
  item: jobSummarySchema,
  summary: "The company's open jobs",
  mcpTool: 'get_company_jobs',
  identifiers: ['slug'],
});

/**
 * A company's offices: its headquarters and branch locations, the places the company search's
 * location filter matches. Beyond the spec's catalog: its MCP tool is listed only on request, and
 * its v2 path is the extension derived from its v1 path.
 */
export const companyLocations = dataLookup({
  id: 'companies.locations',
  family: 'companies',
  group: 'companies',
  summary: "The company's offices",
  description:
    'The headquarters and branch locations of the company, headquarters first, as data.offices: each ' +
    'office is a location of location search (its id is what the company search location filter takes).',
  variants: byIdentifier('/v1/companies/locations', ['slug']),
  identifiers: ['slug'],
  query: z.object(companyIdentifiers('slug')),
  data: listOf('offices', z.object({ id: z.string(), name: z.string(), headquarters: z.boolean() })),
  paging: 'none',
  price: 1,
  mcpTool: 'get_company_locations',
  mcpListing: 'on-request',
});

/*
 * Lookups of the /api/v2 listing that v1 has no operation for: no v1 path (`variants: []`), derived
 * from the dataset's company records, by slug.
 */
const count = z.number().int().min(0);

export const companyJobCount = v2OnlyLookup({
  id: 'companies.job-count',
  v2: [companyPath('/jobs/count')],
  family: 'companies',
  group: 'companies',
  summary: "Number of the company's open jobs",
  description:
    'How many open jobs the company has, as data.count (the jobs lookup returns the first ' +
    `${PAGE_SIZE}).`,
  identifiers: ['slug'],
  query: z.object(companyIdentifiers('slug')),
  data: z.object({ count }),
});

export const companyInsights = v2OnlyLookup({
  id: 'companies.insights',
  v2: [companyPath('/insights')],
  family: 'companies',
  group: 'companies',
  summary: 'Company insights',
  description:
    'Figures about the company: followers, the source-provided size range and founding year, and how ' +
    'many people, open jobs, posts and products the data holds for it (source counts, not verified ' +
    'employee numbers).',
  identifiers: ['slug'],
  query: z.object(companyIdentifiers('slug')),
  data: z.object({
    followerCount: count,
    companySize: companyDetailsSchema.shape.companySize,
    foundedYear: companyDetailsSchema.shape.foundedYear,
    employees: count,
    openJobs: count,
    posts: count,
    products: count,
  }),
});

const peopleFilter = z.object({ value: z.string(), people: count });

export const companyEmployeeFilters = v2OnlyLookup({
  id: 'companies.employee-filters',
  v2: [companyPath('/employee-filters')],
  family: 'companies',
  group: 'companies',
  summary: "People search filters for the company's staff",
  description:
    "The people search filters that find the company's current and former staff (currentCompany and " +
    'pastCompany, each with the value to send, the company publicId), with how many people of the data ' +
    'each finds.',
  identifiers: ['slug'],
  query: z.object(companyIdentifiers('slug')),
  data: z.object({ currentCompany: peopleFilter, pastCompany: peopleFilter }),
});

export const companyOperations = [
  companySearch,
  companyDomainSearch,
  companyDetails,
  companyPosts,
  similarCompanies,
  companyPeople,
  companyProducts,
  companyJobs,
  companyLocations,
  companyJobCount,
  companyInsights,
  companyEmployeeFilters,
] as const;
