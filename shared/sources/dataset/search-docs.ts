/**
 * How each kind of record reads to keyword search (search.ts): which fields are names, which are
 * describing text, what breaks a tie. The database's build indexes exactly these fields, and the
 * tests' reference reader ranks by them, so both read a record alike.
 */
import type {
  CompanyRecord,
  IndustryRecord,
  JobRecord,
  LocationRecord,
  PersonRecord,
  PostRecord,
  SchoolRecord,
} from './model.js';
import type { SearchDoc } from './search.js';

/** A record's search document, by kind (`place`: a location or an industry). */
export const searchDocs = {
  person: (person: PersonRecord): SearchDoc => ({
    names: [person.fullName, person.username],
    texts: [person.headline, person.location],
    weight: person.followerCount,
    key: person.internalId,
  }),
  company: (company: CompanyRecord): SearchDoc => ({
    names: [company.name, company.slug],
    texts: [company.description, company.summary, ...company.specialties],
    weight: company.followerCount,
    key: company.internalId,
  }),
  school: (school: SchoolRecord): SearchDoc => ({
    names: [school.name, school.slug],
    texts: [school.location],
    weight: school.followerCount,
    key: school.internalId,
  }),
  post: (post: PostRecord): SearchDoc => ({
    names: [],
    texts: [post.text, post.authorName],
    weight: post.reactionCount,
    key: post.internalId,
  }),
  job: (job: JobRecord): SearchDoc => ({
    names: [job.title],
    texts: [job.companyName, job.location, job.employmentType, job.seniority],
    weight: job.applicantCount ?? 0,
    key: job.internalId,
  }),
  place: (record: LocationRecord | IndustryRecord): SearchDoc => ({
    names: 'city' in record ? [record.name, record.city] : [record.name],
    texts: ['country' in record ? record.country : null],
    weight: 0,
    key: record.internalId,
  }),
};
