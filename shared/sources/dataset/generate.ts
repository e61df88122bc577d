/**
 * Dataset generation, deterministic for a seed and a size (a seeded PRNG, no clock, no
 * Math.random). Locations, industries, service categories, schools, companies and jobs are built
 * first and kept; people and their activity follow in batches, each drawn only when asked for, so a
 * dataset of any size can stream to disk in bounded memory (generate-files.ts) while
 * `generateDataset()` collects the built-in sample in memory. Records the fixtures name are planted
 * in the first batch; everything else is drawn from the vocabulary.
 */
import { type GenerationContext, idWidthFor } from './context.js';
import { DATASET_FETCHED_AT, DEFAULT_SEED } from './fixtures.js';
import { buildActivity } from './generate-activity.js';
import { buildCompanies, buildJobs, type CompanyPlan, companyCount } from './generate-companies.js';
import { buildPeople, type PersonInputs, PLANTED_PEOPLE, personInputs } from './generate-people.js';
import type { Dataset, IndustryRecord, LocationRecord, SchoolRecord } from './model.js';
import { newestFirst } from './newest-first.js';
import { createRandom } from './random.js';
import { INDUSTRIES, LOCATIONS, SCHOOLS, SERVICE_CATEGORIES } from './vocabulary.js';

export type { Dataset } from './model.js';

/** The size of the built-in sample. */
export const SAMPLE_PROFILES = 300;
/**
 * People per batch: the sample's size, so the sample is exactly one batch and every batch is a
 * community like it. Commenting draws from the batch's posts, so a batch costs its size squared:
 * small batches keep a million profiles to minutes.
 */
export const BATCH_PROFILES = SAMPLE_PROFILES;
/**
 * The most profiles a dataset may have: twice the largest measured (docs/dataset-format.md), since
 * the register of issued identifiers is held in memory and grows with the size.
 */
export const MAX_PROFILES = 2_000_000;

/** People and the activity among them (and with the companies whose posts go with the batch). */
export type PeopleBatch = Pick<Dataset, 'people' | 'posts' | 'comments' | 'reactions'>;

/** A dataset being generated: everything but people and activity, which `batches` yields. */
export type DatasetGeneration = Omit<Dataset, keyof PeopleBatch> & {
  seed: number;
  profiles: number;
  /** One pass only: the batches draw from the random stream in turn. Activity is newest first. */
  batches: Generator<PeopleBatch>;
};

export interface GenerationOptions {
  seed?: number;
  profiles?: number;
}

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

function* peopleBatches(
  ctx: GenerationContext,
  inputs: PersonInputs,
  companies: readonly CompanyPlan[],
  profiles: number,
): Generator<PeopleBatch> {
  const batchCount = Math.ceil(profiles / BATCH_PROFILES);
  // Each company's posts go with one batch, spread evenly, so every batch has some to engage with.
  const companiesUpTo = (batch: number) => Math.floor((batch * companies.length) / batchCount);
  for (let batch = 0; batch < batchCount; batch++) {
    const people = buildPeople(
      ctx,
      inputs,
      Math.min(BATCH_PROFILES, profiles - batch * BATCH_PROFILES),
      batch === 0,
    );
    const activity = buildActivity(
      ctx,
      people,
      companies.slice(companiesUpTo(batch), companiesUpTo(batch + 1)),
    );
    yield { people: people.map((plan) => plan.record), ...activity };
  }
}

export function startGeneration({
  seed = DEFAULT_SEED,
  profiles = SAMPLE_PROFILES,
}: GenerationOptions = {}): DatasetGeneration {
  if (!Number.isSafeInteger(profiles) || profiles < PLANTED_PEOPLE || profiles > MAX_PROFILES) {
    throw new RangeError(`A dataset has ${PLANTED_PEOPLE} to ${MAX_PROFILES} profiles, not ${profiles}.`);
  }
  const locationRecords = locations();
  const ctx: GenerationContext = {
    seed,
    rng: createRandom(seed),
    issued: new Map(),
    locations: new Map(locationRecords.map((location) => [location.id, location])),
    idWidth: idWidthFor(profiles),
    numbered: new Map(),
  };
  const industryRecords = industries();
  const schoolRecords = schools(ctx);
  const companies = buildCompanies(
    ctx,
    new Map(industryRecords.map((industry) => [industry.id, industry])),
    companyCount(profiles),
  );
  const jobs = buildJobs(ctx, companies);
  return {
    seed,
    profiles,
    fetchedAt: DATASET_FETCHED_AT,
    locations: locationRecords,
    industries: industryRecords,
    serviceCategories: SERVICE_CATEGORIES.map((category) => ({
      internalId: `service-${category.id}`,
      ...category,
    })),
    schools: schoolRecords,
    companies: companies.map((plan) => plan.record),
    jobs: newestFirst(jobs, (job) => job.postedAt),
    batches: peopleBatches(ctx, personInputs(companies, schoolRecords), companies, profiles),
  };
}

/** Appends one item at a time: spreading a long list into push() would overflow the call stack. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** A whole dataset in memory: the built-in sample by default, or any size a test wants. */
export function generateDataset(seed = DEFAULT_SEED, profiles = SAMPLE_PROFILES): Dataset {
  const { batches, profiles: _, ...rest } = startGeneration({ seed, profiles });
  const all: PeopleBatch = { people: [], posts: [], comments: [], reactions: [] };
  for (const batch of batches) {
    append(all.people, batch.people);
    append(all.posts, batch.posts);
    append(all.comments, batch.comments);
    append(all.reactions, batch.reactions);
  }
  return {
    ...rest,
    people: all.people,
    posts: newestFirst(all.posts, (post) => post.postedAt),
    comments: newestFirst(all.comments, (comment) => comment.commentedAt),
    reactions: newestFirst(all.reactions, (reaction) => reaction.reactedAt),
  };
}
