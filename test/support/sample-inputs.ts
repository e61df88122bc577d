/**
 * Inputs that match the dataset fixtures, per path variant: the identifiers of each family, known and
 * unknown, and each operation's examples from its catalog entry. Shared by the REST and MCP tests,
 * so both transports are checked against the same requests.
 */
import { exampleInput, type OperationDefinition } from '../../schemas/operation-definition.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';

const profile = fx.richProfile;

/** Usernames of profiles that exist, in several scripts: for many lookups of one operation. */
export const knownUsernames: readonly string[] = [
  fx.richProfile.username,
  fx.withheldProfile.username,
  fx.emptyProfile.username,
  fx.manyPositionsProfile.username,
  ...fx.nonEnglishUsernames,
];

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

/** The entry's examples of its parameters besides its identifiers (searches: all of them). */
export function otherParameters(operation: OperationDefinition): Record<string, string> {
  return Object.fromEntries(
    Object.entries(operation.examples).filter(([name]) => !operation.identifiers.includes(name)),
  );
}

export interface SampleRequest {
  /** The REST path of the variant. */
  path: string;
  /** Query parameters, which are also the tool arguments. */
  parameters: Record<string, string>;
}

/**
 * One request per path variant: the entry's own examples (which name records the sample dataset
 * plants), with the identifiers taken from `values` (by family).
 */
export function sampleRequests(
  operation: OperationDefinition,
  values: Record<string, Record<string, string>> = identifierValues,
): SampleRequest[] {
  return operation.variants.map((variant) => {
    const parameters = Object.fromEntries(exampleInput(operation, variant));
    for (const name of operation.identifiers) {
      const value = values[operation.family]?.[name];
      if (Object.hasOwn(parameters, name) && value !== undefined) parameters[name] = value;
    }
    return { path: variant.path, parameters };
  });
}
