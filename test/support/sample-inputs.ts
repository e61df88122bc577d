/**
 * Inputs that match the dataset fixtures, per operation and path variant: the identifier of each
 * family and the other parameters each data lookup needs. Shared by the REST and MCP tests, so
 * both transports are checked against the same requests.
 */
import type { OperationDefinition } from '../../schemas/catalog.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';

const profile = fx.richProfile;

/** Identifiers that exist in the dataset, by family and identifier name. */
export const identifierValues: Record<string, Record<string, string>> = {
  profiles: {
    username: profile.username,
    url: `https://www.linkedin.com/in/${profile.username}/`,
    publicId: profile.publicId,
  },
  companies: {
    slug: fx.richCompany.slug,
    url: `https://www.linkedin.com/company/${fx.richCompany.slug}/`,
    publicId: fx.richCompany.publicId,
  },
  posts: { slug: fx.post.slug, url: `https://www.linkedin.com/posts/${fx.post.slug}/` },
  jobs: { url: `https://www.linkedin.com/jobs/view/${fx.jobId}/` },
};

/** Identifiers of the right shape that match nothing in the dataset, by family and identifier name. */
export const unknownIdentifiers: Record<string, Record<string, string>> = {
  profiles: {
    username: 'nobody-at-all',
    url: 'https://www.linkedin.com/in/nobody-at-all',
    publicId: `ACoAA${'Z'.repeat(30)}`,
  },
  companies: {
    slug: 'no-such-company',
    url: 'https://www.linkedin.com/company/no-such-company',
    publicId: '999999999',
  },
  posts: {
    slug: 'nobody_nothing-activity-1111111111111111111-Zzzz',
    url: 'https://www.linkedin.com/posts/nobody_nothing-activity-1111111111111111111-Zzzz',
  },
  jobs: { url: 'https://www.linkedin.com/jobs/view/1000000001/' },
};

/** Parameters besides the identifier, per operation; searches name theirs here. */
export const otherParameters: Record<string, Record<string, string>> = {
  'profiles.posts': { username: profile.username },
  'profiles.comments': { username: profile.username },
  'profiles.reactions': { username: profile.username },
  'profiles.similar': { username: profile.username },
  'companies.search': { keywords: fx.broadCompanyKeyword },
  'companies.search-by-domain': { domain: fx.sharedDomain.domain },
  'posts.reactions': { reactionType: 'ALL' },
  'search.schools': { keywords: fx.schoolKeyword },
  'search.people': { keywords: fx.peopleNarrowing.keywords },
  'search.all': { keywords: 'northwind' },
  'search.posts-by-hashtag': { hashtag: fx.hashtag },
  'search.posts': { keywords: 'scaling' },
  'search.locations': { keywords: fx.locationKeyword },
  'search.industries': { query: fx.industryQuery },
  'search.service-categories': {},
  'search.typeahead': { query: 'north' },
  'search.filters': {},
  'jobs.search': { keywords: 'engineer' },
  'jobs.search-filters': { keywords: 'engineer' },
  'emails.disposable': { email: 'someone@mailinator.com' },
};

export interface SampleRequest {
  /** The REST path of the variant. */
  path: string;
  /** Query parameters, which are also the tool arguments. */
  parameters: Record<string, string>;
}

/** One request per path variant, with identifiers taken from `values` (by family). */
export function sampleRequests(
  operation: OperationDefinition,
  values: Record<string, Record<string, string>> = identifierValues,
): SampleRequest[] {
  return operation.variants.map((variant) => {
    const parameters = { ...otherParameters[operation.id] };
    // Activity and similar profiles take the username as a plain parameter, not a path variant.
    if (parameters.username) parameters.username = values.profiles?.username as string;
    if (variant.identifier)
      parameters[variant.identifier] = values[operation.family]?.[variant.identifier] as string;
    return { path: variant.path, parameters };
  });
}
