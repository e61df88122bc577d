/**
 * Run functions of the company family.
 */
import { companyOperations } from '../../schemas/operations/companies.js';
import { offsetPage, PAGE_SIZE } from '../paging/pages.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { companyRef, type DataDependencies, defaultDataDependencies } from './data-runtime.js';

/** The catalog entries this module runs: a function of this family serves only these. */
export { companyOperations as operations };

export function createImplementations(
  runtime: RunnerRuntime,
  { source }: Pick<DataDependencies, 'source'> = defaultDataDependencies(runtime),
): OperationImplementation[] {
  const slugOf = (input: { slug?: string; url?: string }) => (input.slug ?? input.url) as string;
  return implement(companyOperations, {
    'companies.search': async (input, { signal }) => {
      const offset = input.offset ?? 0;
      const filters = {
        keywords: input.keywords,
        locationIds: input.location,
        industryIds: input.industry,
        companySizes: input.companySize,
        hasJobs: input.hasJobs === 'true' ? true : undefined,
      };
      const page = offsetPage(
        offset,
        await source.searchCompanies(filters, { start: offset, count: PAGE_SIZE }, signal),
      );
      return { data: { companies: page.items }, meta: { paging: page.paging } };
    },
    'companies.search-by-domain': async ({ domain, offset = 0 }, { signal }) => {
      const window = await source.searchCompaniesByDomain(
        domain,
        { start: offset, count: PAGE_SIZE },
        signal,
      );
      const page = offsetPage(offset, window);
      return { data: { companies: page.items }, meta: { paging: page.paging } };
    },
    'companies.details': async (input, { signal }) => ({
      data: await source.companyDetails(companyRef(input), signal),
    }),
    'companies.posts': async (input, { signal }) => ({
      data: { posts: await source.companyPosts(slugOf(input), signal) },
    }),
    'companies.similar': async (input, { signal }) => ({
      data: { companies: await source.similarCompanies(slugOf(input), signal) },
    }),
    'companies.people': async (input, { signal }) => ({
      data: { people: await source.companyPeople(slugOf(input), signal) },
    }),
    'companies.products': async (input, { signal }) => ({
      data: { products: await source.companyProducts(slugOf(input), signal) },
    }),
    'companies.jobs': async (input, { signal }) => ({
      data: { jobs: await source.companyJobs(slugOf(input), signal) },
    }),
    'companies.locations': async (input, { signal }) => {
      const { headquarters, locations } = await source.companyDetails(companyRef(input), signal);
      return {
        data: {
          offices: locations.map((place) => ({ ...place, headquarters: place.id === headquarters?.id })),
        },
      };
    },
    'companies.job-count': async (input, { signal }) => ({
      data: { count: (await source.companyTotals(slugOf(input), signal)).jobs },
    }),
    'companies.employee-filters': async (input, { signal }) => {
      const staff = await source.companyStaffCounts(slugOf(input), signal);
      return {
        data: {
          currentCompany: { value: staff.publicId, people: staff.current },
          pastCompany: { value: staff.publicId, people: staff.past },
        },
      };
    },
    'companies.insights': async (input, { signal }) => {
      const slug = slugOf(input);
      const [details, totals] = await Promise.all([
        source.companyDetails(companyRef({ slug }), signal),
        source.companyTotals(slug, signal),
      ]);
      return {
        data: {
          followerCount: details.followerCount,
          companySize: details.companySize,
          foundedYear: details.foundedYear,
          employees: totals.employees,
          openJobs: totals.jobs,
          posts: totals.posts,
          products: totals.products,
        },
      };
    },
  });
}
