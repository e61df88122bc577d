/**
 * The embedded sample dataset: `generateDataset(seed)` builds locations, industries, service
 * categories, schools, companies, jobs, people and their activity in memory, deterministically for
 * a seed (a seeded PRNG, no clock, no Math.random). Records the fixtures name are planted by the
 * stages; everything else is drawn from the vocabulary.
 */
import type { GenerationContext } from './context.js';
import { DATASET_FETCHED_AT, DEFAULT_SEED } from './fixtures.js';
import { buildActivity } from './generate-activity.js';
import { buildCompanies, buildJobs } from './generate-companies.js';
import { buildPeople } from './generate-people.js';
import type { Dataset, IndustryRecord, LocationRecord, SchoolRecord } from './model.js';
import { createRandom } from './random.js';
import { INDUSTRIES, LOCATIONS, SCHOOLS, SERVICE_CATEGORIES } from './vocabulary.js';

export type { Dataset } from './model.js';

const locations = (): LocationRecord[] =>
  LOCATIONS.map((seed, index) => ({
    internalId: `location-${index + 1}`,
    id: seed.id,
    name: `${seed.city}, ${seed.country}`,
    city: seed.city,
    country: seed.country,
  }));

const industries = (): IndustryRecord[] =>
  INDUSTRIES.map((seed) => ({ internalId: `industry-${seed.id}`, id: seed.id, name: seed.name }));

function schools(ctx: GenerationContext): SchoolRecord[] {
  return SCHOOLS.map((seed, index) => ({
    internalId: `school-${index + 1}`,
    name: seed.name,
    slug: seed.slug,
    location: seed.location,
    networkUrl: `https://www.linkedin.com/school/${seed.slug}/`,
    followerCount: Math.round(10 ** (4 + ctx.rng.next() * 2)),
  }));
}

export function generateDataset(seed = DEFAULT_SEED): Dataset {
  const locationRecords = locations();
  const ctx: GenerationContext = {
    seed,
    rng: createRandom(seed),
    issued: new Set(),
    locations: new Map(locationRecords.map((location) => [location.id, location])),
  };
  const industryRecords = industries();
  const schoolRecords = schools(ctx);
  const companies = buildCompanies(ctx, new Map(industryRecords.map((industry) => [industry.id, industry])));
  const jobs = buildJobs(ctx, companies);
  const people = buildPeople(ctx, companies, schoolRecords);
  const activity = buildActivity(ctx, people, companies);
  return {
    seed,
    fetchedAt: DATASET_FETCHED_AT,
    locations: locationRecords,
    industries: industryRecords,
    serviceCategories: SERVICE_CATEGORIES.map((category) => ({
      internalId: `service-${category.id}`,
      ...category,
    })),
    schools: schoolRecords,
    companies: companies.map((plan) => plan.record),
    people: people.map((plan) => plan.record),
    ...activity,
    jobs: jobs.sort(
      (a, b) => Date.parse(b.postedAt) - Date.parse(a.postedAt) || (a.internalId < b.internalId ? -1 : 1),
    ),
  };
}
