/**
 * Public shapes of the looked-up data. zod objects strip unknown keys, so whatever a data source
 * adds (internal ids, fetch times, source tags) never reaches a public body: every run's data is
 * parsed through these before it is answered.
 */
import * as z from 'zod';
import { companySizeCodes, reactionTypes } from './parameters.js';

const text = z.string();
const nullableText = z.string().nullable();
const count = z.number().int().min(0);
const yearMonth = z.object({ year: z.number().int(), month: z.number().int().min(1).max(12).nullable() });

export const profileSummarySchema = z.object({
  publicId: text,
  username: text,
  fullName: text,
  headline: nullableText,
  location: nullableText,
  networkUrl: text,
});

export const positionSchema = z.object({
  title: text,
  companyName: text,
  companySlug: nullableText,
  companyPublicId: nullableText,
  location: nullableText,
  startDate: yearMonth.nullable(),
  endDate: yearMonth.nullable(),
  isCurrent: z.boolean(),
  description: nullableText,
});

export const educationSchema = z.object({
  schoolName: text,
  schoolSlug: nullableText,
  degree: nullableText,
  fieldOfStudy: nullableText,
  startYear: z.number().int().nullable(),
  endYear: z.number().int().nullable(),
});

export const skillSchema = z.object({ name: text, endorsementCount: count });

export const certificationSchema = z.object({
  name: text,
  authority: nullableText,
  issuedOn: yearMonth.nullable(),
});

export const courseSchema = z.object({ name: text, number: nullableText });

export const volunteerExperienceSchema = z.object({
  role: text,
  organization: text,
  cause: nullableText,
  startDate: yearMonth.nullable(),
  endDate: yearMonth.nullable(),
});

export const languageProficiencies = [
  'elementary',
  'limited_working',
  'professional_working',
  'full_professional',
  'native_or_bilingual',
] as const;

export const languageSchema = z.object({ name: text, proficiency: z.enum(languageProficiencies).nullable() });

export const honorSchema = z.object({
  title: text,
  issuer: nullableText,
  date: yearMonth.nullable(),
  description: nullableText,
});

export const organizationSchema = z.object({
  name: text,
  role: nullableText,
  startDate: yearMonth.nullable(),
  endDate: yearMonth.nullable(),
});

export const companyInterestSchema = z.object({
  name: text,
  slug: text,
  publicId: text,
  followerCount: count,
});

export const contactSchema = z.object({
  emails: z.array(text),
  phoneNumbers: z.array(text),
  websites: z.array(text),
  twitterHandles: z.array(text),
});

export const postSchema = z.object({
  slug: text,
  url: text,
  authorName: text,
  authorUsername: nullableText,
  authorCompanySlug: nullableText,
  text,
  postedAt: text,
  hashtags: z.array(text),
  reactionCount: count,
  commentCount: count,
});

export const commentSchema = z.object({
  commentId: text,
  postSlug: text,
  postUrl: text,
  authorName: text,
  authorUsername: text,
  text,
  commentedAt: text,
});

export const reactionSchema = z.object({
  reactionType: z.enum(reactionTypes),
  postSlug: text,
  postUrl: text,
  reactorName: text,
  reactorUsername: text,
  reactedAt: text,
});

export const companySearchItemSchema = z.object({
  name: text,
  slug: text,
  networkUrl: text,
  description: text,
  summary: nullableText,
  logoUrl: nullableText,
});

const idName = z.object({ id: text, name: text });

export const companyDetailsSchema = z.object({
  publicId: text,
  slug: text,
  name: text,
  networkUrl: text,
  description: text,
  summary: nullableText,
  logoUrl: nullableText,
  website: nullableText,
  domain: nullableText,
  industry: idName.nullable(),
  headquarters: idName.nullable(),
  locations: z.array(idName),
  companySize: z.object({ code: z.enum(companySizeCodes), range: text }).nullable(),
  foundedYear: z.number().int().nullable(),
  specialties: z.array(text),
  followerCount: count,
  hasJobs: z.boolean(),
});

export const productSchema = z.object({ name: text, category: nullableText, description: nullableText });

export const jobSummarySchema = z.object({
  jobId: text,
  url: text,
  title: text,
  companyName: text,
  companySlug: nullableText,
  location: nullableText,
  postedAt: text,
  employmentType: nullableText,
});

export const jobDetailsSchema = jobSummarySchema.extend({
  description: text,
  seniority: nullableText,
  applicantCount: count.nullable(),
});

export const schoolSchema = z.object({ name: text, slug: text, location: nullableText, networkUrl: text });
export const locationSchema = idName;
export const industrySchema = idName;
export const serviceCategorySchema = idName;

export const typeaheadItemSchema = z.object({
  type: z.enum(['person', 'company', 'school', 'location', 'industry']),
  id: text,
  label: text,
});

export const searchAllItemSchema = z.discriminatedUnion('type', [
  profileSummarySchema.extend({ type: z.literal('person') }),
  companySearchItemSchema.extend({ type: z.literal('company') }),
  schoolSchema.extend({ type: z.literal('school') }),
  postSchema.extend({ type: z.literal('post') }),
  jobSummarySchema.extend({ type: z.literal('job') }),
]);

/** The profile sections whose status profile details report (meta.sections). */
export const profileSections = [
  'experience',
  'education',
  'skills',
  'certifications',
  'courses',
  'volunteerExperience',
  'companyInterests',
] as const;
export type ProfileSection = (typeof profileSections)[number];

export const sectionStatuses = ['complete', 'empty', 'incomplete', 'unavailable'] as const;
export type SectionStatus = (typeof sectionStatuses)[number];

export const profileDetailsSchema = profileSummarySchema.extend({
  summary: nullableText,
  experience: z.array(positionSchema),
  education: z.array(educationSchema),
  skills: z.array(text),
});

export type ProfileSummary = z.infer<typeof profileSummarySchema>;
export type Position = z.infer<typeof positionSchema>;
export type Education = z.infer<typeof educationSchema>;
export type Skill = z.infer<typeof skillSchema>;
export type Certification = z.infer<typeof certificationSchema>;
export type Course = z.infer<typeof courseSchema>;
export type VolunteerExperience = z.infer<typeof volunteerExperienceSchema>;
export type CompanyInterest = z.infer<typeof companyInterestSchema>;
export type Language = z.infer<typeof languageSchema>;
export type Honor = z.infer<typeof honorSchema>;
export type Organization = z.infer<typeof organizationSchema>;
export type Contact = z.infer<typeof contactSchema>;
export type Post = z.infer<typeof postSchema>;
export type Comment = z.infer<typeof commentSchema>;
export type Reaction = z.infer<typeof reactionSchema>;
export type CompanySearchItem = z.infer<typeof companySearchItemSchema>;
export type CompanyDetails = z.infer<typeof companyDetailsSchema>;
export type Product = z.infer<typeof productSchema>;
export type JobSummary = z.infer<typeof jobSummarySchema>;
export type JobDetails = z.infer<typeof jobDetailsSchema>;
export type School = z.infer<typeof schoolSchema>;
export type IdName = z.infer<typeof idName>;
export type TypeaheadItem = z.infer<typeof typeaheadItemSchema>;
export type SearchAllItem = z.infer<typeof searchAllItemSchema>;
