/**
 * What the data lookups mean, through the real app and dataset: profile details' sections and skills
 * meta, people search by company, company search filters and relevance.
 */
import { describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { harnessForFile } from '../support/harness.js';

const file = harnessForFile({ credits: 10_000 });

async function data<T>(
  path: string,
  parameters: Record<string, string>,
): Promise<{ data: T; meta: Record<string, unknown> }> {
  const response = await file.harness.get(`${path}?${new URLSearchParams(parameters)}`, file.apiKey);
  expect(response.status).toBe(200);
  return (await response.json()) as { data: T; meta: Record<string, unknown> };
}

describe('profile details', () => {
  const details = (username: string) =>
    data<Record<string, unknown> & { experience: unknown[]; skills: string[] }>(
      '/v1/profiles/details/by-username',
      {
        username,
      },
    );

  it('carries neither contact details nor company interests', async () => {
    const { data: profile } = await details(fx.richProfile.username);
    for (const field of ['contact', 'emails', 'companyInterests', 'phoneNumbers'])
      expect(profile).not.toHaveProperty(field);
  });

  it('reports a complete profile with more skills than the preview', async () => {
    const { data: profile, meta } = await details(fx.richProfile.username);
    expect(meta.skills).toEqual({ hasMore: true });
    expect(profile.skills.length).toBeGreaterThan(0);
    expect(profile.skills.length).toBeLessThanOrEqual(10);
    expect(meta.sections).toMatchObject({ education: 'complete', skills: 'incomplete' });
  });

  it('reports withheld sections as unavailable, not empty, and skills.hasMore as unknown', async () => {
    const { data: profile, meta } = await details(fx.withheldProfile.username);
    expect(meta.skills).toEqual({ hasMore: null });
    for (const section of fx.withheldProfile.withheld)
      expect((meta.sections as Record<string, string>)[section]).toBe('unavailable');
    expect(profile.skills).toEqual([]);
  });

  it('reports empty sections as empty', async () => {
    const { meta } = await details(fx.emptyProfile.username);
    expect(meta.sections).toMatchObject({ education: 'empty', skills: 'empty', certifications: 'empty' });
    expect(meta.skills).toEqual({ hasMore: false });
  });

  it('reports a preview of experience as incomplete; the experience endpoint has all of it', async () => {
    const { data: profile, meta } = await details(fx.manyPositionsProfile.username);
    expect((meta.sections as Record<string, string>).experience).toBe('incomplete');
    const full = await data<{ positions: unknown[] }>('/v1/profiles/experience/by-username', {
      username: fx.manyPositionsProfile.username,
    });
    expect(full.data.positions).toHaveLength(fx.manyPositionsProfile.positions);
    expect(profile.experience.length).toBeLessThan(fx.manyPositionsProfile.positions);
  });

  it('finds the same profile by username, URL and publicId', async () => {
    const byUsername = await details(fx.richProfile.username);
    const byId = await data('/v1/profiles/details/by-id', { publicId: fx.richProfile.publicId });
    const byUrl = await data('/v1/profiles/details/by-url', {
      url: `https://www.linkedin.com/in/${fx.richProfile.username}`,
    });
    expect(byId.data).toEqual(byUsername.data);
    expect(byUrl.data).toEqual(byUsername.data);
  });
});

describe('people search by company', () => {
  type Person = { username: string };
  const people = async (parameters: Record<string, string>) =>
    (
      await data<{ people: Person[] }>('/v1/search/people', {
        keywords: fx.peopleNarrowing.keywords,
        ...parameters,
      })
    ).data.people.map((person) => person.username);

  it('takes the publicId from company details, and both filters together narrow the result', async () => {
    const company = await data<{ publicId: string }>('/v1/companies/details/by-slug', {
      slug: fx.richCompany.slug,
    });
    expect(company.data.publicId).toBe(fx.peopleNarrowing.currentCompany);
    const current = await people({ currentCompany: fx.peopleNarrowing.currentCompany });
    const past = await people({ pastCompany: fx.peopleNarrowing.pastCompany });
    const both = await people({
      currentCompany: fx.peopleNarrowing.currentCompany,
      pastCompany: fx.peopleNarrowing.pastCompany,
    });
    expect(current.length).toBeGreaterThan(0);
    expect(past.length).toBeGreaterThan(0);
    expect(both.length).toBeGreaterThan(0);
    for (const username of both) {
      expect(current).toContain(username);
      expect(past).toContain(username);
    }
    expect(both.length).toBeLessThan(Math.max(current.length, past.length));
  });
});

describe('company search', () => {
  type Company = { slug: string };
  const slugs = async (parameters: Record<string, string>) =>
    (await data<{ companies: Company[] }>('/v1/companies/search', parameters)).data.companies.map(
      (company) => company.slug,
    );

  it('ranks an exact name above a better-followed prefix match', async () => {
    const found = await slugs({ keywords: fx.exactCompanyName.keywords });
    expect(found[0]).toBe(fx.exactCompanyName.slug);
    expect(found).toContain(fx.exactCompanyName.prefixSlug);
  });

  it('matches a location filter on a branch, not only the headquarters', async () => {
    const found = await slugs({ keywords: 'northwind', location: fx.branchLocation.locationId });
    expect(found).toContain(fx.branchLocation.companySlug);
  });

  it('applies every filter, each narrowing the result', async () => {
    const base = { keywords: fx.broadCompanyKeyword };
    const all = await slugs(base);
    const narrowed = await slugs({
      ...base,
      industry: fx.industryId,
      hasJobs: 'true',
      companySize: 'B,C,D,E,F,G,H,I',
    });
    expect(narrowed.length).toBeGreaterThan(0);
    const details = await Promise.all(
      narrowed
        .filter((slug) => /^[a-z0-9][a-z0-9_-]*$/.test(slug))
        .map((slug) =>
          data<{ hasJobs: boolean; industry: { id: string } }>('/v1/companies/details/by-slug', { slug }),
        ),
    );
    for (const { data: company } of details) {
      expect(company.hasJobs).toBe(true);
      expect(company.industry.id).toBe(fx.industryId);
    }
    expect(all.length).toBeGreaterThanOrEqual(narrowed.length);
  });
});
