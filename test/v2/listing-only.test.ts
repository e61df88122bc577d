/**
 * The /api/v2 endpoints whose operations v1 does not have: what each answers is derived from data the
 * v1 lookups return for the same profile or company, so each is checked against those v1 answers.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10_000 });

async function v2Data<T>(path: string): Promise<T> {
  const response = await file.harness.app.request(path, { headers: { 'X-API-Key': file.apiKey } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: T }).data;
}
async function v1Body<T>(path: string): Promise<{ data: T; meta: Record<string, unknown> }> {
  const response = await file.harness.get(path, file.apiKey);
  expect(response.status).toBe(200);
  return (await response.json()) as { data: T; meta: Record<string, unknown> };
}

/** Every item of a start-paged v1 list. */
async function allPages(path: string, list: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let start: number | null = 0;
  while (start !== null) {
    const body: { data: Record<string, unknown[]>; meta: Record<string, unknown> } = await v1Body<
      Record<string, unknown[]>
    >(`${path}&start=${start}`);
    items.push(...(body.data[list] ?? []));
    start = (body.meta.paging as { nextStart: number | null }).nextStart;
  }
  return items;
}

describe.each([fx.richProfile.username, fx.manyPositionsProfile.username])('profile %s', (username) => {
  const q = `username=${username}`;

  it('counts each section as many items as the v1 lookups return', async () => {
    const { counts } = await v2Data<{ counts: Record<string, number | null> }>(
      `/api/v2/profiles/${username}/counts`,
    );
    const lists = [
      ['positions', 'experience'],
      ['education', 'education'],
      ['certifications', 'certifications'],
      ['courses', 'courses'],
      ['volunteerExperience', 'volunteer-experience'],
    ] as const;
    for (const [field, path] of lists) {
      const { data } = await v1Body<Record<string, unknown[]>>(`/v1/profiles/${path}/by-username?${q}`);
      expect([field, counts[field]]).toEqual([field, data[field]?.length]);
    }
    expect(counts.skills).toBe((await allPages(`/v1/profiles/skills/by-username?${q}`, 'skills')).length);
    expect(counts.companyInterests).toBe(
      (await allPages(`/v1/profiles/company-interests/by-username?${q}`, 'companyInterests')).length,
    );
  });

  it('answers the current positions as top positions', async () => {
    const top = await v2Data<{ positions: { isCurrent: boolean }[] }>(
      `/api/v2/profiles/${username}/positions/top`,
    );
    const { data } = await v1Body<{ positions: { isCurrent: boolean }[] }>(
      `/v1/profiles/experience/by-username?${q}`,
    );
    const current = data.positions.filter((position) => position.isCurrent);
    expect(top.positions).toEqual(current.length > 0 ? current : data.positions.slice(0, 1));
  });

  it('answers the section statuses of profile details', async () => {
    const { sections } = await v2Data<{ sections: unknown }>(`/api/v2/profiles/${username}/sections`);
    const details = await v1Body(`/v1/profiles/details/by-username?${q}`);
    expect(sections).toEqual(details.meta.sections);
  });

  it('answers the newest three items of each activity stream', async () => {
    const latest = await v2Data<Record<string, unknown[]>>(`/api/v2/profiles/${username}/activity/latest`);
    for (const kind of ['posts', 'comments', 'reactions']) {
      const items: unknown[] = [];
      let cursor: string | null | undefined;
      do {
        const body = await v1Body<Record<string, unknown[]>>(
          `/v1/profiles/${kind}?${new URLSearchParams({ username, ...(cursor ? { cursor } : {}) })}`,
        );
        items.push(...(body.data[kind] ?? []));
        cursor = (body.meta.paging as { nextCursor: string | null }).nextCursor;
      } while (cursor && items.length < 3);
      expect([kind, latest[kind]]).toEqual([kind, items.slice(0, 3)]);
    }
  });
});

describe.each(['languages', 'honors', 'organizations'])('the %s section', (section) => {
  it('lists items of a rich profile and none of a bare one, the same on every call', async () => {
    const path = (username: string) => `/api/v2/profiles/${username}/${section}`;
    const rich = await v2Data<Record<string, unknown[]>>(path(fx.richProfile.username));
    expect(rich[section]?.length).toBeGreaterThan(0);
    expect(await v2Data(path(fx.richProfile.username))).toEqual(rich);
    const bare = await v2Data<Record<string, unknown[]>>(path(fx.emptyProfile.username));
    expect(bare).toEqual({ [section]: [] });
  });
});

describe('company', () => {
  const slug = fx.richCompany.slug;

  it('counts its open jobs and reports the figures of its details', async () => {
    const { count } = await v2Data<{ count: number }>(`/api/v2/companies/${slug}/jobs/count`);
    const jobs = await v1Body<{ jobs: unknown[] }>(`/v1/companies/jobs/by-slug?slug=${slug}`);
    expect(count).toBeGreaterThan(0);
    // The v1 list is a first page of 10; the count is of the whole list.
    expect(count).toBeGreaterThanOrEqual(jobs.data.jobs.length);
    if (jobs.data.jobs.length < 10) expect(count).toBe(jobs.data.jobs.length);

    const insights = await v2Data<Record<string, unknown>>(`/api/v2/companies/${slug}/insights`);
    const details = await v1Body<Record<string, unknown>>(`/v1/companies/details/by-slug?slug=${slug}`);
    expect(insights).toMatchObject({
      followerCount: details.data.followerCount,
      companySize: details.data.companySize,
      foundedYear: details.data.foundedYear,
      openJobs: count,
    });
    const products = await v1Body<{ products: unknown[] }>(`/v1/companies/products/by-slug?slug=${slug}`);
    expect(insights.products).toBeGreaterThanOrEqual(products.data.products.length);
  });
});

describe('search filters', () => {
  interface Filters {
    location: { id: string; name: string }[];
    industry: { id: string; name: string }[];
    companySize: { code: string; range: string }[];
    hasJobs: string[];
  }

  it('answers values company search accepts, including those of a company it finds', async () => {
    const filters = await v2Data<Filters>('/api/v2/search/filters');
    expect(filters.companySize.map((size) => size.code)).toEqual(['B', 'C', 'D', 'E', 'F', 'G', 'H', 'I']);
    expect(filters.hasJobs).toEqual(['true']);
    const details = await v1Body<{ industry: { id: string }; headquarters: { id: string } }>(
      `/v1/companies/details/by-slug?slug=${fx.richCompany.slug}`,
    );
    expect(filters.industry.map((industry) => industry.id)).toContain(details.data.industry.id);
    expect(filters.location.map((location) => location.id)).toContain(details.data.headquarters.id);
    const search = await v1Body<{ companies: { slug: string }[] }>(
      `/v1/companies/search?${new URLSearchParams({
        keywords: fx.richCompany.slug.split('-')[0] as string,
        industry: details.data.industry.id,
        location: details.data.headquarters.id,
      })}`,
    );
    expect(search.data.companies.map((company) => company.slug)).toContain(fx.richCompany.slug);
  });
});

describe('employee filters', () => {
  interface StaffFilters {
    currentCompany: { value: string; people: number };
    pastCompany: { value: string; people: number };
  }

  it("give the company's publicId for people search and count its current staff as insights do", async () => {
    const slug = fx.richCompany.slug;
    const filters = await v2Data<StaffFilters>(`/api/v2/companies/${slug}/employee-filters`);
    const details = await v1Body<{ publicId: string }>(`/v1/companies/details/by-slug?slug=${slug}`);
    expect(filters.currentCompany.value).toBe(details.data.publicId);
    expect(filters.pastCompany.value).toBe(details.data.publicId);
    const insights = await v2Data<{ employees: number }>(`/api/v2/companies/${slug}/insights`);
    expect(filters.currentCompany.people).toBe(insights.employees);
  });

  it('count the former staff people search finds with pastCompany', async () => {
    const { pastCompany } = fx.peopleNarrowing;
    const company = await v2Data<{ slug: string }>(`/api/v2/companies/id/${pastCompany}`);
    const filters = await v2Data<StaffFilters>(`/api/v2/companies/${company.slug}/employee-filters`);
    const found = await v1Body<{ people: unknown[] }>(
      `/v1/search/people?${new URLSearchParams({ keywords: fx.peopleNarrowing.keywords, pastCompany })}`,
    );
    expect(found.data.people.length).toBeGreaterThan(0);
    expect(filters.pastCompany.people).toBeGreaterThanOrEqual(found.data.people.length);
  });
});

describe('job search filters', () => {
  interface Facets {
    matched: number;
    location: { value: string; jobs: number }[];
    company: { value: string; jobs: number }[];
  }

  it('spread all matching jobs over companies and cover the jobs job search answers', async () => {
    const keywords = 'engineer';
    const facets = await v2Data<Facets>(`/api/v2/jobs/search/filters?keywords=${keywords}`);
    const search = await v1Body<{ jobs: { companyName: string; location: string | null }[] }>(
      `/v1/jobs/search?keywords=${keywords}`,
    );
    expect(facets.matched).toBeGreaterThanOrEqual(search.data.jobs.length);
    expect(facets.company.reduce((sum, entry) => sum + entry.jobs, 0)).toBe(facets.matched);
    const companies = facets.company.map((entry) => entry.value);
    for (const job of search.data.jobs) expect(companies).toContain(job.companyName);
    const counts = facets.location.map((entry) => entry.jobs);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('answer no values for keywords no job matches', async () => {
    expect(await v2Data('/api/v2/jobs/search/filters?keywords=zzqxv-nothing')).toEqual({
      matched: 0,
      location: [],
      company: [],
      employmentType: [],
      seniority: [],
    });
  });
});
