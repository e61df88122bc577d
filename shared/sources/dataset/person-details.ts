/**
 * What profile details read of a person, kept beside each stored person in the dataset database
 * (`people.details`): the summary fields, the first positions and skill names, the education, what
 * is withheld, and each section's size. A details lookup then parses about a third of the whole record
 * (docs/benchmarks.md). DatasetSource answers from it; the in-memory reference derives it from the
 * whole record on every call, so the reference comparison holds the stored copy to the record. What
 * it holds is part of the database's format: a change to it bumps DATASET_DATABASE_VERSION.
 */
import type { PersonRecord, ProfileSection } from './model.js';

/** Positions profile details include; more make experience 'incomplete'. */
export const DETAILS_POSITIONS = 5;
/** Skill names profile details include. */
export const SKILLS_PREVIEW = 5;

export type PersonDetails = Pick<
  PersonRecord,
  | 'internalId'
  | 'publicId'
  | 'username'
  | 'fullName'
  | 'networkUrl'
  | 'headline'
  | 'location'
  | 'summary'
  | 'withheld'
  | 'education'
> & {
  /** The first DETAILS_POSITIONS positions. */
  positions: PersonRecord['positions'];
  /** The names of the first SKILLS_PREVIEW skills. */
  skillNames: string[];
  /** How many items each section holds in the whole record. */
  sectionSizes: Record<ProfileSection, number>;
};

export function personDetailsOf(person: PersonRecord): PersonDetails {
  const { internalId, publicId, username, fullName, networkUrl, headline, location, summary } = person;
  return {
    internalId,
    publicId,
    username,
    fullName,
    networkUrl,
    headline,
    location,
    summary,
    withheld: person.withheld,
    education: person.education,
    positions: person.positions.slice(0, DETAILS_POSITIONS),
    skillNames: person.skills.slice(0, SKILLS_PREVIEW).map((skill) => skill.name),
    sectionSizes: {
      experience: person.positions.length,
      education: person.education.length,
      skills: person.skills.length,
      certifications: person.certifications.length,
      courses: person.courses.length,
      volunteerExperience: person.volunteerExperience.length,
      companyInterests: person.interests.length,
    },
  };
}
