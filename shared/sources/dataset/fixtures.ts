/**
 * Named handles into the sample dataset that tests (unit and API) can rely on. The generator
 * (generate-*.ts) plants the records these names point at, so the handles hold for every seed;
 * test/unit/dataset-source.test.ts proves each one resolves and has the property its name promises.
 */

export const DEFAULT_SEED = 20261123;

/** Every record of the dataset reports this fetch time. */
export const DATASET_FETCHED_AT = '2026-11-23T06:00:00.000Z';

/** Values are typed as plain strings (not literals) so tests can pass them where any username goes. */
export const datasetFixtures = {
  /** Every section filled; > 25 skills, interests, posts, comments and reactions. */
  richProfile: {
    username: 'amelia-hartmann',
    publicId: 'ACoAABx7Qm2Lr9TzK4vWp1nHs8dEe3Fg5YcJkU',
    fullName: 'Amelia Hartmann',
    /** The reactions position whose raw window holds only reactions to comments: an empty page, more after it. */
    emptyReactionsPosition: '10',
  },
  /** Education, skills and company interests withheld by the source (skillsHasMore null). */
  withheldProfile: {
    username: 'daniel-okafor',
    publicId: 'ACoAACq2Wd5Nf8Hk1Ls4Tz7Xv0Bm3Rp6Jg9Ye',
    withheld: ['education', 'skills', 'companyInterests'] as const,
  },
  /** One position and nothing else: every other section 'empty', no activity. */
  emptyProfile: { username: 'wei-zhang', publicId: 'ACoAADm4Pt7Qs0Vx3Za6Cf9Hj2Kn5Lr8Wb1Ge' },
  /** Eight positions: details hold five, experience reports 'incomplete'. */
  manyPositionsProfile: {
    username: 'rafael-souza',
    publicId: 'ACoAAEf6Gh9Jk2Lm5Np8Qr1St4Uv7Wx0Yz3Ab',
    positions: 8,
  },
  /**
   * Usernames with non-English letters (looked up exactly after NFC normalization): Latin with
   * accents, Cyrillic, Devanagari, Arabic, CJK and Thai.
   */
  nonEnglishUsernames: [
    'josé-garcía',
    'zoë-müller',
    'мария-иванова',
    'प्रिया-शर्मा',
    'محمد-الفارسي',
    '王芳',
    'สมชาย-ใจดี',
  ] as readonly [string, ...string[]],
  /** A company with jobs, products, posts and current employees. */
  richCompany: { slug: 'northwind-analytics', publicId: '2461837', name: 'Northwind Analytics' },
  /**
   * Slugs the network hands out with a period, an ampersand, a leading underscore and non-English
   * letters; the source's own lookup refuses them (SPEC), ours accepts every slug search returns.
   */
  unusualSlugs: ['acme.co', 'smith&sons', '_hidden-labs', 'café-münchen'] as readonly [
    string,
    string,
    string,
    string,
  ],
  /** A domain shared by more than 10 companies (some on subdomains), so domain search pages past 10. */
  sharedDomain: { domain: 'helixgroup.com', companyCount: 15, subdomainCount: 3 },
  /** An exact company name; a prefix-named sibling has more followers but must rank second. */
  exactCompanyName: { keywords: 'Helix Group', slug: 'helix-group', prefixSlug: 'helix-group-foundation' },
  /** A keyword more than 25 companies match. */
  broadCompanyKeyword: 'software',
  /** Berlin is a branch of Northwind Analytics, whose headquarters are in London. */
  branchLocation: {
    locationId: '106967730',
    headquartersId: '102257491',
    companySlug: 'northwind-analytics',
  },
  /** Software Development. */
  industryId: '4',
  /** currentCompany Northwind Analytics, pastCompany Helix Payments: both together narrow the result. */
  peopleNarrowing: { keywords: 'engineer', currentCompany: '2461837', pastCompany: '3318905' },
  /** A post of the rich profile with comments and reactions of every type. */
  post: {
    slug: 'amelia-hartmann_what-we-learned-scaling-activity-7265401938275610624-Xk3q',
    authorUsername: 'amelia-hartmann',
  },
  /** A job of Northwind Analytics. */
  jobId: '4081726354',
  /** A hashtag more than 10 posts carry. */
  hashtag: 'leadership',
  /** Matches several schools ("Technology" in their names). */
  schoolKeyword: 'technology',
  /** A location keyword and an industry query with exact matches. */
  locationKeyword: 'Berlin',
  industryQuery: 'Financial Services',
};
