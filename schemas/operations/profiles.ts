/**
 * Profile lookups: details, contact, sections, activity (cursor-paged) and similar profiles.
 */
import * as z from 'zod';
import { cursorParam, startParam, usernameParam } from '../parameters.js';
import {
  certificationSchema,
  commentSchema,
  companyInterestSchema,
  contactSchema,
  courseSchema,
  educationSchema,
  honorSchema,
  languageSchema,
  organizationSchema,
  positionSchema,
  postSchema,
  profileDetailsSchema,
  profileSummarySchema,
  reactionSchema,
  sectionStatuses,
  skillSchema,
  volunteerExperienceSchema,
} from '../records.js';
import { byPathParameter, byQuery, profilePath } from '../v2-paths.js';
import {
  byIdentifier,
  dataLookup,
  type ListLookupSpec,
  listOf,
  PAGE_SIZE,
  pageSizeHint,
  profileIdentifiers,
  v2OnlyLookup,
} from './data-lookup.js';

const PROFILE_IDS = ['username', 'url', 'publicId'] as const;
const PROFILE_IDS_NO_PUBLIC_ID = ['username', 'url'] as const;

export const profileDetails = dataLookup({
  id: 'profiles.details',
  v2: [
    byQuery('/profiles/detail', 'url'),
    byPathParameter('/profiles/id/{profile_id}', 'publicId', 'profile_id'),
    profilePath(''),
  ],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile details',
  description:
    'Name, headline, location, summary, work experience, education and a preview of skill names. ' +
    'meta.sections says per section whether it is complete, empty, incomplete (a preview) or unavailable ' +
    '(withheld by the source); meta.skills.hasMore says whether more skills exist. Contact details and ' +
    'company interests have their own endpoints.',
  variants: byIdentifier('/v1/profiles/details', PROFILE_IDS),
  identifiers: PROFILE_IDS,
  query: z.object(profileIdentifiers(...PROFILE_IDS)),
  parameterHints: {
    includeContact:
      'includeContact is not supported on profile details; use /v1/profiles/contact/by-username.',
  },
  data: profileDetailsSchema,
  meta: z.object({
    sections: z.record(z.string(), z.enum(sectionStatuses)),
    skills: z.object({ hasMore: z.boolean().nullable() }),
  }),
  paging: 'none',
  price: 2,
  mcpTool: 'get_profile_details',
});

export const profileContact = dataLookup({
  id: 'profiles.contact',
  v2: [profilePath('/contact')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile contact details',
  description: 'Email addresses, phone numbers, websites and social handles the profile publishes.',
  variants: byIdentifier('/v1/profiles/contact', PROFILE_IDS_NO_PUBLIC_ID),
  identifiers: PROFILE_IDS_NO_PUBLIC_ID,
  query: z.object(profileIdentifiers(...PROFILE_IDS_NO_PUBLIC_ID)),
  data: contactSchema,
  paging: 'none',
  price: 3,
  mcpTool: 'get_profile_contact',
});

/** A profile section returned whole, by username or URL. */
function profileSection<const Id extends string, const Name extends string>(spec: ListLookupSpec<Id, Name>) {
  return dataLookup({
    id: spec.id,
    family: 'profiles',
    group: 'profiles',
    summary: spec.summary,
    description: `${spec.summary}, complete, as data.${spec.list}.`,
    variants: byIdentifier(spec.path, PROFILE_IDS_NO_PUBLIC_ID),
    identifiers: PROFILE_IDS_NO_PUBLIC_ID,
    query: z.object(profileIdentifiers(...PROFILE_IDS_NO_PUBLIC_ID)),
    data: listOf(spec.list, spec.item),
    paging: 'none',
    price: 1,
    mcpTool: spec.mcpTool,
    v2: spec.v2,
    examples: spec.examples,
  });
}

export const profileExperience = profileSection({
  id: 'profiles.experience',
  v2: [profilePath('/positions')],
  path: '/v1/profiles/experience',
  list: 'positions',
  item: positionSchema,
  summary: 'Profile work experience',
  mcpTool: 'get_profile_full_experience',
});
export const profileEducation = profileSection({
  id: 'profiles.education',
  v2: [profilePath('/education')],
  path: '/v1/profiles/education',
  list: 'education',
  item: educationSchema,
  summary: 'Profile education',
  mcpTool: 'get_profile_education',
});
export const profileCertifications = profileSection({
  id: 'profiles.certifications',
  v2: [profilePath('/certifications')],
  path: '/v1/profiles/certifications',
  list: 'certifications',
  item: certificationSchema,
  summary: 'Profile certifications',
  mcpTool: 'get_profile_certifications',
});
export const profileCourses = profileSection({
  id: 'profiles.courses',
  v2: [profilePath('/courses')],
  path: '/v1/profiles/courses',
  list: 'courses',
  item: courseSchema,
  summary: 'Profile courses',
  mcpTool: 'get_profile_courses',
});
export const profileVolunteerExperience = profileSection({
  id: 'profiles.volunteer-experience',
  v2: [profilePath('/volunteer-experience')],
  path: '/v1/profiles/volunteer-experience',
  list: 'volunteerExperience',
  item: volunteerExperienceSchema,
  summary: 'Profile volunteer experience',
  mcpTool: 'get_profile_volunteer_experience',
});

const startPaged = `Pages of ${PAGE_SIZE}: send start=0 first, then meta.paging.nextStart until hasMore is false.`;

export const profileSkills = dataLookup({
  id: 'profiles.skills',
  v2: [profilePath('/skills')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile skills',
  description: `Skills with endorsement counts. ${startPaged}`,
  variants: byIdentifier('/v1/profiles/skills', PROFILE_IDS_NO_PUBLIC_ID),
  identifiers: PROFILE_IDS_NO_PUBLIC_ID,
  query: z.object({ ...profileIdentifiers(...PROFILE_IDS_NO_PUBLIC_ID), start: startParam.optional() }),
  parameterHints: { count: pageSizeHint, limit: pageSizeHint },
  data: listOf('skills', skillSchema),
  paging: 'start',
  price: 1,
  mcpTool: 'get_profile_skills',
});

export const profileCompanyInterests = dataLookup({
  id: 'profiles.company-interests',
  v2: [profilePath('/interests/companies')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Companies the profile follows',
  description: `Followed companies. ${startPaged}`,
  variants: byIdentifier('/v1/profiles/company-interests', PROFILE_IDS),
  identifiers: PROFILE_IDS,
  query: z.object({ ...profileIdentifiers(...PROFILE_IDS), start: startParam.optional() }),
  parameterHints: { count: pageSizeHint, limit: pageSizeHint },
  data: listOf('companyInterests', companyInterestSchema),
  paging: 'start',
  price: 1,
  mcpTool: 'get_profile_company_interests',
});

const cursorPaged =
  'Omit cursor on the first request; while meta.paging.hasMore is true, copy nextCursor unchanged into cursor. ' +
  'Pages may be short or empty while more exist. Cursors expire within 15 minutes. Every page is billed.';

/** A profile's activity stream, by username, paged by cursor. */
function profileActivity<const Id extends string, const Name extends string>(spec: ListLookupSpec<Id, Name>) {
  return dataLookup({
    id: spec.id,
    family: 'profiles',
    group: 'profile-activity',
    summary: spec.summary,
    description: `${spec.summary}, newest first, as data.${spec.list}. ${cursorPaged}`,
    variants: [{ path: spec.path }],
    identifiers: ['username'],
    query: z.object({ username: usernameParam, cursor: cursorParam.optional() }),
    parameterHints: { count: pageSizeHint, limit: pageSizeHint },
    data: listOf(spec.list, spec.item),
    paging: 'cursor',
    price: 1,
    mcpTool: spec.mcpTool,
    v2: spec.v2,
    examples: spec.examples,
  });
}

export const profilePosts = profileActivity({
  id: 'profiles.posts',
  v2: [profilePath('/posts')],
  path: '/v1/profiles/posts',
  list: 'posts',
  item: postSchema,
  summary: 'Posts the profile wrote',
  mcpTool: 'get_profile_posts',
});
export const profileComments = profileActivity({
  id: 'profiles.comments',
  v2: [profilePath('/comments')],
  path: '/v1/profiles/comments',
  list: 'comments',
  item: commentSchema,
  summary: 'Comments the profile wrote',
  mcpTool: 'get_profile_comments',
});
export const profileReactions = profileActivity({
  id: 'profiles.reactions',
  v2: [profilePath('/reactions')],
  path: '/v1/profiles/reactions',
  list: 'reactions',
  item: reactionSchema,
  summary: 'Reactions the profile made to posts (reactions to comments are excluded)',
  mcpTool: 'get_profile_reactions',
});

export const similarProfiles = dataLookup({
  id: 'profiles.similar',
  v2: [profilePath('/related/follow-recommendations')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Similar profiles',
  description: 'Up to 10 profiles similar to this one, as data.profiles.',
  variants: [{ path: '/v1/profiles/similar' }],
  identifiers: ['username'],
  query: z.object({ username: usernameParam }),
  data: listOf('profiles', profileSummarySchema),
  paging: 'none',
  price: 1,
  mcpTool: 'get_similar_profiles',
});

/*
 * Lookups of the /api/v2 listing that v1 has no operation for: no v1 path (`variants: []`), derived
 * from the data the v1 profile lookups return, by username.
 */
const count = z.number().int().min(0);

export const profileCounts = v2OnlyLookup({
  id: 'profiles.counts',
  v2: [profilePath('/counts')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile section counts',
  description:
    'How many items each profile section holds (positions, education, skills, certifications, courses, ' +
    `volunteer experience, followed companies); null for a section the source withholds.`,
  identifiers: ['username'],
  query: z.object({ username: usernameParam }),
  data: z.object({
    counts: z.object({
      positions: count.nullable(),
      education: count.nullable(),
      skills: count.nullable(),
      certifications: count.nullable(),
      courses: count.nullable(),
      volunteerExperience: count.nullable(),
      companyInterests: count.nullable(),
    }),
  }),
});

export const profileTopPositions = v2OnlyLookup({
  id: 'profiles.top-positions',
  v2: [profilePath('/positions/top')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile current positions',
  description:
    'The positions the profile holds now (isCurrent), newest first, as data.positions; when none is ' +
    `current, the most recent past position alone; [] when the profile lists none.`,
  identifiers: ['username'],
  query: z.object({ username: usernameParam }),
  data: listOf('positions', positionSchema),
});

export const profileSections = v2OnlyLookup({
  id: 'profiles.sections',
  v2: [profilePath('/sections')],
  family: 'profiles',
  group: 'profiles',
  summary: 'Profile section statuses',
  description:
    'Per profile section: complete, empty, incomplete (profile details hold a preview) or unavailable ' +
    `(withheld by the source), as data.sections: the meta.sections of profile details.`,
  identifiers: ['username'],
  query: z.object({ username: usernameParam }),
  data: z.object({ sections: z.record(z.string(), z.enum(sectionStatuses)) }),
});

export const LATEST_ACTIVITY_ITEMS = 3;

export const profileLatestActivity = v2OnlyLookup({
  id: 'profiles.latest-activity',
  v2: [profilePath('/activity/latest')],
  family: 'profiles',
  group: 'profile-activity',
  summary: 'Profile latest activity',
  description:
    `The newest posts, comments and reactions of the profile, at most ${LATEST_ACTIVITY_ITEMS} of each, ` +
    `as data.posts, data.comments and data.reactions; page through each stream for more.`,
  identifiers: ['username'],
  query: z.object({ username: usernameParam }),
  data: z.object({
    posts: z.array(postSchema),
    comments: z.array(commentSchema),
    reactions: z.array(reactionSchema),
  }),
});

/** A profile section only /api/v2 serves, returned whole, by username. */
function v2ProfileSection<const Id extends string, const Name extends string>(
  spec: Omit<ListLookupSpec<Id, Name>, 'path' | 'mcpTool'>,
) {
  return v2OnlyLookup({
    id: spec.id,
    family: 'profiles',
    group: 'profiles',
    summary: spec.summary,
    description: `${spec.summary}, complete, as data.${spec.list}.`,
    identifiers: ['username'],
    query: z.object({ username: usernameParam }),
    data: listOf(spec.list, spec.item),
    v2: spec.v2,
  });
}

export const profileLanguages = v2ProfileSection({
  id: 'profiles.languages',
  v2: [profilePath('/languages')],
  list: 'languages',
  item: languageSchema,
  summary: 'Profile languages, with proficiency',
});
export const profileHonors = v2ProfileSection({
  id: 'profiles.honors',
  v2: [profilePath('/honors')],
  list: 'honors',
  item: honorSchema,
  summary: 'Profile honors and awards',
});
export const profileOrganizations = v2ProfileSection({
  id: 'profiles.organizations',
  v2: [profilePath('/organizations')],
  list: 'organizations',
  item: organizationSchema,
  summary: 'Organizations the profile is a member of',
});

export const profileOperations = [
  profileDetails,
  profileContact,
  profileExperience,
  profileEducation,
  profileSkills,
  profileCertifications,
  profileCourses,
  profileCompanyInterests,
  profileVolunteerExperience,
  profilePosts,
  profileComments,
  profileReactions,
  similarProfiles,
  profileCounts,
  profileTopPositions,
  profileSections,
  profileLatestActivity,
  profileLanguages,
  profileHonors,
  profileOrganizations,
] as const;
