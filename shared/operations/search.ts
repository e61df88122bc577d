/**
 * Run functions of the search family.
 */
import { searchOperations } from '../../schemas/operations/search.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { type DataDependencies, defaultDataDependencies } from './data-runtime.js';

/** The catalog entries this module runs: a function of this family serves only these. */
export { searchOperations as operations };

export function createImplementations(
  runtime: RunnerRuntime,
  { source }: Pick<DataDependencies, 'source'> = defaultDataDependencies(runtime),
): OperationImplementation[] {
  return implement(searchOperations, {
    'search.schools': async ({ keywords }, { signal }) => ({
      data: { schools: await source.searchSchools(keywords, signal) },
    }),
    'search.people': async (filters, { signal }) => ({
      data: { people: await source.searchPeople(filters, signal) },
    }),
    'search.all': async ({ keywords }, { signal }) => ({
      data: { results: await source.searchAll(keywords, signal) },
    }),
    'search.posts-by-hashtag': async ({ hashtag }, { signal }) => ({
      data: { posts: await source.searchPostsByHashtag(hashtag, signal) },
    }),
    'search.posts': async ({ keywords }, { signal }) => ({
      data: { posts: await source.searchPosts(keywords, signal) },
    }),
    'search.locations': async ({ keywords }, { signal }) => ({
      data: { locations: await source.searchLocations(keywords, signal) },
    }),
    'search.industries': async ({ query }, { signal }) => ({
      data: { industries: await source.searchIndustries(query, signal) },
    }),
    'search.service-categories': async (_, { signal }) => ({
      data: { serviceCategories: await source.serviceCategories(signal) },
    }),
    'search.typeahead': async ({ query }, { signal }) => ({
      data: { items: await source.typeahead(query, signal) },
    }),
    'search.filters': async (_, { signal }) => {
      const values = await source.companySearchFilterValues(signal);
      return {
        data: {
          location: values.locations,
          industry: values.industries,
          companySize: values.companySizes,
          hasJobs: ['true'],
        },
      };
    },
  });
}
