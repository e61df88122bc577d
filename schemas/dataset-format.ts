/**
 * The dataset format, version 1 (docs/dataset-format.md): a directory holding `manifest.json` and one
 * JSON Lines file per record type. Each line schema is the public record schema of records.ts plus
 * what the dataset stores besides (`internalId`, references by id, private counts), and refuses
 * unknown fields at every depth, so a misspelt field is a bad line rather than a silently missing
 * value. The published JSON Schema files under schemas/dataset/ are generated from these.
 */
import * as z from 'zod';
import { companySizeCodes } from './parameters.js';
import {
  certificationSchema,
  commentSchema,
  companyDetailsSchema,
  contactSchema,
  courseSchema,
  educationSchema,
  honorSchema,
  industrySchema,
  jobDetailsSchema,
  languageSchema,
  locationSchema,
  organizationSchema,
  positionSchema,
  postSchema,
  productSchema,
  profileSections,
  profileSummarySchema,
  reactionSchema,
  schoolSchema,
  serviceCategorySchema,
  skillSchema,
  volunteerExperienceSchema,
} from './records.js';

export const DATASET_FORMAT = 'lookup-service-dataset';
export const DATASET_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

/**
 * The same schema with every object, however deep, refusing unknown keys. Only the kinds the record
 * schemas use are rebuilt (objects, arrays, nullables, optionals); descriptions are kept. Strictness
 * changes what a parse accepts, never the parsed type, hence the cast.
 */
function strictEverywhere<T extends z.ZodType>(schema: T): T {
  let strict: z.ZodType = schema;
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => [
        key,
        strictEverywhere(field),
      ]),
    );
    strict = z.strictObject(shape);
  } else if (schema instanceof z.ZodArray) {
    strict = z.array(strictEverywhere(schema.element as z.ZodType));
  } else if (schema instanceof z.ZodNullable) {
    strict = strictEverywhere(schema.unwrap() as z.ZodType).nullable();
  } else if (schema instanceof z.ZodOptional) {
    strict = strictEverywhere(schema.unwrap() as z.ZodType).optional();
  }
  const meta = z.globalRegistry.get(schema);
  return (meta && strict !== schema ? strict.meta(meta) : strict) as unknown as T;
}

const text = z.string();
const count = z.number().int().min(0);
/** A UTC instant as toISOString() writes it ("2026-11-20T12:00:00.000Z"); readers order activity by it. */
const instant = z.iso.datetime();
const internalId = z
  .string()
  .min(1)
  .meta({ description: 'The private identifier of the record, unique in its file; never served.' });

const line = <T extends z.ZodType>(schema: T, file: string, description: string) =>
  strictEverywhere(schema).meta({ title: `A line of ${file}`, description });

export const locationLineSchema = line(
  locationSchema.extend({ internalId, city: text, country: text }),
  'locations.jsonl',
  'A place companies, people and jobs are in; `id` is what location filters take.',
);

export const industryLineSchema = line(
  industrySchema.extend({ internalId }),
  'industries.jsonl',
  'An industry; `id` is what industry filters take.',
);

export const serviceCategoryLineSchema = line(
  serviceCategorySchema.extend({ internalId }),
  'service-categories.jsonl',
  'A service category of the service-categories search.',
);

export const schoolLineSchema = line(
  schoolSchema.extend({ internalId, followerCount: count }),
  'schools.jsonl',
  'A school; people refer to it by `slug` in their education.',
);

export const companyLineSchema = line(
  companyDetailsSchema
    .omit({ industry: true, headquarters: true, locations: true, companySize: true })
    .extend({
      internalId,
      industryId: text.meta({ description: 'The `id` of a line of industries.jsonl.' }),
      headquartersId: text.meta({ description: 'The `id` of a line of locations.jsonl.' }),
      locationIds: z
        .array(text)
        .meta({ description: 'Every location of the company (ids of locations.jsonl), headquarters first.' }),
      sizeCode: z.enum(companySizeCodes),
      products: z.array(productSchema),
    }),
  'companies.jsonl',
  'A company. Details derive industry, headquarters, locations and size from the ids and code.',
);

export const personLineSchema = line(
  profileSummarySchema.extend({
    internalId,
    summary: text.nullable(),
    followerCount: count.meta({ description: 'Not public: orders people when relevance ties.' }),
    positions: z.array(positionSchema).meta({ description: 'Newest first; current positions lead.' }),
    education: z.array(educationSchema),
    skills: z.array(skillSchema).meta({ description: 'Most endorsed first.' }),
    certifications: z.array(certificationSchema),
    courses: z.array(courseSchema),
    volunteerExperience: z.array(volunteerExperienceSchema),
    interests: z
      .array(text)
      .meta({ description: 'publicIds of followed companies (lines of companies.jsonl).' }),
    languages: z.array(languageSchema),
    honors: z.array(honorSchema),
    organizations: z.array(organizationSchema),
    contact: contactSchema,
    withheld: z.array(z.enum(profileSections)).meta({
      description: "Sections the source withholds: they report 'unavailable' and read as empty.",
    }),
  }),
  'people.jsonl',
  'A profile with every section. languages, honors and organizations are read by /api/v2 only.',
);

export const postLineSchema = line(
  postSchema.extend({ internalId, postedAt: instant }),
  'posts.jsonl',
  'A post by a person (authorUsername) or a company (authorCompanySlug).',
);

export const commentLineSchema = line(
  commentSchema.extend({ internalId, commentedAt: instant }),
  'comments.jsonl',
  'A comment under a post (postSlug) by a person (authorUsername).',
);

export const reactionLineSchema = line(
  reactionSchema.extend({
    internalId,
    reactedAt: instant,
    commentId: text
      .nullable()
      .meta({ description: 'Set: a reaction to that comment under the post; null: to the post itself.' }),
  }),
  'reactions.jsonl',
  'A reaction by a person (reactorUsername) to a post or to a comment under it.',
);

export const jobLineSchema = line(
  jobDetailsSchema.extend({ internalId, postedAt: instant }),
  'jobs.jsonl',
  'A job posting of a company (companySlug).',
);

/**
 * The files of a dataset, reference data first, then the records that refer to it: an importer
 * reading them in this order meets every referenced record before the references to it.
 * `collection` names the list of the in-memory Dataset (shared/sources/dataset/model.ts).
 */
export const datasetFiles = [
  { file: 'locations.jsonl', collection: 'locations', schema: locationLineSchema },
  { file: 'industries.jsonl', collection: 'industries', schema: industryLineSchema },
  { file: 'service-categories.jsonl', collection: 'serviceCategories', schema: serviceCategoryLineSchema },
  { file: 'schools.jsonl', collection: 'schools', schema: schoolLineSchema },
  { file: 'companies.jsonl', collection: 'companies', schema: companyLineSchema },
  { file: 'people.jsonl', collection: 'people', schema: personLineSchema },
  { file: 'posts.jsonl', collection: 'posts', schema: postLineSchema },
  { file: 'comments.jsonl', collection: 'comments', schema: commentLineSchema },
  { file: 'reactions.jsonl', collection: 'reactions', schema: reactionLineSchema },
  { file: 'jobs.jsonl', collection: 'jobs', schema: jobLineSchema },
] as const;

export type DatasetFile = (typeof datasetFiles)[number];
export type DatasetFileName = DatasetFile['file'];
/** The record type one line of `F` holds. */
export type DatasetRecord<F extends DatasetFileName> = z.infer<Extract<DatasetFile, { file: F }>['schema']>;

export const datasetManifestSchema = z
  .strictObject({
    format: z.literal(DATASET_FORMAT),
    version: z.literal(DATASET_FORMAT_VERSION).meta({
      description: 'Readers refuse a version they do not know; a later format changes this number.',
    }),
    fetchedAt: instant.meta({ description: 'The fetch time every record of the dataset reports.' }),
    seed: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The generator seed; null for data not generated.' }),
    profiles: count.meta({ description: 'How many lines people.jsonl holds.' }),
    generator: text.optional().meta({ description: 'What wrote the dataset, for people reading it.' }),
  })
  .meta({ title: MANIFEST_FILE, description: 'What a dataset directory holds; readers check it first.' });

export type DatasetManifest = z.infer<typeof datasetManifestSchema>;
