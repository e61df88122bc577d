/**
 * The in-memory shape of the sample dataset. Plain JSON-like data (no Maps, Sets or classes) so two
 * generations can be compared for equality and a snapshot could be written to disk. Each stored
 * record keeps the public fields of its schema plus the private `internalId`; what is derived or
 * withheld is decided by the adapter (dataset-source.ts), not stored twice.
 */
import type { CompanySizeCode } from '../../../schemas/parameters.js';
import type {
  Certification,
  Comment,
  Contact,
  Course,
  Education,
  Honor,
  IdName,
  JobDetails,
  Language,
  Organization,
  Position,
  Post,
  Product,
  Reaction,
  School,
  Skill,
  VolunteerExperience,
} from '../../../schemas/records.js';

export type Stored<T> = T & { internalId: string };

/** The profile sections whose status profile details report. */
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

export type LocationRecord = Stored<IdName> & { city: string; country: string };
export type IndustryRecord = Stored<IdName>;
export type SchoolRecord = Stored<School> & { followerCount: number };

export interface CompanyRecord {
  internalId: string;
  publicId: string;
  slug: string;
  name: string;
  networkUrl: string;
  description: string;
  summary: string | null;
  logoUrl: string | null;
  website: string | null;
  domain: string | null;
  industryId: string;
  headquartersId: string;
  /** Every location of the company, headquarters first. */
  locationIds: string[];
  sizeCode: CompanySizeCode;
  foundedYear: number | null;
  specialties: string[];
  followerCount: number;
  hasJobs: boolean;
  products: Product[];
}

export interface PersonRecord {
  internalId: string;
  publicId: string;
  username: string;
  fullName: string;
  networkUrl: string;
  headline: string | null;
  location: string | null;
  summary: string | null;
  /** Not public: orders people when relevance ties. */
  followerCount: number;
  /** Newest first; current positions lead. */
  positions: Position[];
  education: Education[];
  /** Most endorsed first. */
  skills: Skill[];
  certifications: Certification[];
  courses: Course[];
  volunteerExperience: VolunteerExperience[];
  /** publicIds of followed companies of the dataset. */
  interests: string[];
  /** Sections only /api/v2 reads; profile details do not report a status for them. */
  languages: Language[];
  honors: Honor[];
  organizations: Organization[];
  contact: Contact;
  /** Sections the source withholds: they report 'unavailable' and read as empty. */
  withheld: ProfileSection[];
}

export type PostRecord = Stored<Post>;
export type CommentRecord = Stored<Comment>;
/** A reaction to a post, or (commentId set) to a comment under that post. */
export type ReactionRecord = Stored<Reaction> & { commentId: string | null };
export type JobRecord = Stored<JobDetails>;

export interface Dataset {
  seed: number;
  /** The one fetch time every record reports. */
  fetchedAt: string;
  locations: LocationRecord[];
  industries: IndustryRecord[];
  serviceCategories: Stored<IdName>[];
  schools: SchoolRecord[];
  companies: CompanyRecord[];
  people: PersonRecord[];
  /** Newest first, as are comments and reactions. */
  posts: PostRecord[];
  comments: CommentRecord[];
  reactions: ReactionRecord[];
  jobs: JobRecord[];
}
