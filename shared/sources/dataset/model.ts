/**
 * The in-memory shape of a dataset. Plain JSON-like data (no Maps, Sets or classes) so two
 * generations can be compared for equality and written to disk as they are. Each stored record type
 * is the line schema of its file (schemas/dataset-format.ts), defined there once: the public fields
 * of its record schema plus the private `internalId` and the stored extras; what is derived or
 * withheld is decided by the adapter (dataset-source.ts), not stored twice.
 */
import type * as z from 'zod';
import type {
  commentLineSchema,
  companyLineSchema,
  industryLineSchema,
  jobLineSchema,
  locationLineSchema,
  personLineSchema,
  postLineSchema,
  reactionLineSchema,
  schoolLineSchema,
  serviceCategoryLineSchema,
} from '../../../schemas/dataset-format.js';

export { type ProfileSection, profileSections } from '../../../schemas/records.js';

export type Stored<T> = T & { internalId: string };

export type LocationRecord = z.infer<typeof locationLineSchema>;
export type IndustryRecord = z.infer<typeof industryLineSchema>;
export type ServiceCategoryRecord = z.infer<typeof serviceCategoryLineSchema>;
export type SchoolRecord = z.infer<typeof schoolLineSchema>;
export type CompanyRecord = z.infer<typeof companyLineSchema>;
export type PersonRecord = z.infer<typeof personLineSchema>;
export type PostRecord = z.infer<typeof postLineSchema>;
export type CommentRecord = z.infer<typeof commentLineSchema>;
/** A reaction to a post, or (commentId set) to a comment under that post. */
export type ReactionRecord = z.infer<typeof reactionLineSchema>;
export type JobRecord = z.infer<typeof jobLineSchema>;

export interface Dataset {
  /** The generator's seed; null for a dataset that was not generated. */
  seed: number | null;
  /** The one fetch time every record reports. */
  fetchedAt: string;
  locations: LocationRecord[];
  industries: IndustryRecord[];
  serviceCategories: ServiceCategoryRecord[];
  schools: SchoolRecord[];
  /** In creation order, as are people. */
  companies: CompanyRecord[];
  people: PersonRecord[];
  /** Newest first by (time desc, internalId asc), as are comments, reactions and jobs. */
  posts: PostRecord[];
  comments: CommentRecord[];
  reactions: ReactionRecord[];
  jobs: JobRecord[];
}
