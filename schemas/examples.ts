/**
 * One example value per query parameter of every operation, keyed by operation id, published in
 * the OpenAPI document (and so pre-filled by the docs page's "Try it out"). They name records the
 * sample dataset plants for every seed (shared/sources/dataset/fixtures.ts), so a request built from
 * them succeeds; test/api/openapi-document.test.ts sends each one. Email and website examples use
 * reserved or well-known public names, since those tools reach the network.
 *
 * `cursor` has no example: a cursor is signed and expires within 15 minutes, so only
 * `meta.paging.nextCursor` of a previous page is ever valid.
 *
 * The document's 200 examples are what the sample answers to these inputs
 * (schemas/response-examples.json, recorded by scripts/response-examples.ts), except for the
 * operations that reach the network, whose answers are written here (`networkResponseExamples`).
 */
import type { OperationId } from './catalog.js';

const profile = {
  username: 'amelia-hartmann',
  url: 'https://www.linkedin.com/in/amelia-hartmann',
  publicId: 'ACoAABx7Qm2Lr9TzK4vWp1nHs8dEe3Fg5YcJkU',
  start: '0',
};

const company = {
  slug: 'northwind-analytics',
  url: 'https://www.linkedin.com/company/northwind-analytics',
  publicId: '2461837',
};

const POST_SLUG = 'amelia-hartmann_what-we-learned-scaling-activity-7265401938275610624-Xk3q';
const post = { slug: POST_SLUG, url: `https://www.linkedin.com/posts/${POST_SLUG}` };

export const parameterExamples = {
  'profiles.details': profile,
  'profiles.contact': profile,
  'profiles.experience': profile,
  'profiles.education': profile,
  'profiles.skills': profile,
  'profiles.certifications': profile,
  'profiles.courses': profile,
  'profiles.company-interests': profile,
  'profiles.volunteer-experience': profile,
  'profiles.posts': profile,
  'profiles.comments': profile,
  'profiles.reactions': profile,
  'profiles.similar': profile,
  'profiles.counts': profile,
  'profiles.top-positions': profile,
  'profiles.sections': profile,
  'profiles.latest-activity': profile,
  'profiles.languages': profile,
  'profiles.honors': profile,
  'profiles.organizations': profile,
  // Every filter matches Northwind Analytics (a Berlin branch, software, 501-1,000 staff, open jobs).
  'companies.search': {
    keywords: 'Northwind Analytics',
    offset: '0',
    location: '106967730',
    industry: '4',
    companySize: 'F',
    hasJobs: 'true',
  },
  'companies.search-by-domain': { domain: 'helixgroup.com', offset: '0' },
  'companies.details': company,
  'companies.posts': company,
  'companies.similar': company,
  'companies.people': company,
  'companies.products': company,
  'companies.jobs': company,
  'companies.job-count': company,
  'companies.insights': company,
  'companies.employee-filters': company,
  'posts.details': post,
  'posts.comments': post,
  'posts.reactions': { ...post, reactionType: 'ALL' },
  'search.schools': { keywords: 'technology' },
  'search.people': { keywords: 'engineer', currentCompany: '2461837', pastCompany: '3318905' },
  'search.all': { keywords: 'Northwind' },
  'search.posts-by-hashtag': { hashtag: 'leadership' },
  'search.posts': { keywords: 'leadership' },
  'search.locations': { keywords: 'Berlin' },
  'search.industries': { query: 'Financial Services' },
  'search.service-categories': {},
  'search.typeahead': { query: 'North' },
  'search.filters': {},
  'jobs.search': { keywords: 'engineer' },
  'jobs.search-filters': { keywords: 'engineer' },
  'jobs.details': { url: 'https://www.linkedin.com/jobs/view/4081726354' },
  'emails.disposable': { email: 'someone@mailinator.com' },
  'emails.verify': { email: 'jane.doe@example.com' },
  'emails.find': { firstName: 'Jane', lastName: 'Doe', domain: 'example.com' },
  'websites.content': { url: 'https://example.com/' },
  'websites.text': { url: 'https://example.com/' },
  'websites.emails': { url: 'https://example.com/' },
} as const satisfies Record<OperationId, Readonly<Record<string, string>>>;

/**
 * The answers of the operations that reach mail servers and web sites, to the inputs above, written
 * by hand: they cannot be recorded without the live internet. example.com is reserved (RFC 2606) and
 * stands for any domain here; the shapes and values are those the service answers for a real one.
 */
export const networkResponseExamples = {
  'emails.verify': {
    data: {
      email: 'jane.doe@example.com',
      user: 'jane.doe',
      domain: 'example.com',
      mx: 'mx1.example.com',
      status: 'valid',
      reason: 'accepted',
      isCatchAll: false,
      isDisposable: false,
    },
    meta: { creditCost: 2 },
  },
  'emails.find': {
    data: {
      email: 'jane.doe@example.com',
      status: 'found',
      isCatchAll: false,
      isDisposable: false,
      candidatesChecked: 2,
      verification: { mx: 'mx1.example.com', status: 'valid', reason: 'accepted' },
    },
    meta: { creditCost: 10 },
  },
  'websites.content': {
    data: {
      url: 'https://example.com/',
      title: 'Example Domain',
      html:
        '<!DOCTYPE html><html lang="en"><head><title>Example Domain</title><meta name="viewport" ' +
        'content="width=device-width, initial-scale=1"></head><body><div><h1>Example Domain</h1><p>This ' +
        'domain is for use in documentation examples without needing permission. Avoid use in operations.' +
        '</p><p><a href="https://iana.org/domains/example">Learn more</a></p></div></body></html>',
    },
    meta: { creditCost: 2 },
  },
  'websites.text': {
    data: {
      url: 'https://example.com/',
      title: 'Example Domain',
      text:
        'Example Domain\n\nThis domain is for use in documentation examples without needing permission. ' +
        'Avoid use in operations.\n\nLearn more',
    },
    meta: { creditCost: 2 },
  },
  'websites.emails': {
    data: {
      url: 'https://example.com/',
      emails: [
        { email: 'hello@example.com', sourceUrl: 'https://example.com/contact' },
        { email: 'privacy@example.com', sourceUrl: 'https://example.com/contact' },
      ],
      pagesChecked: 2,
      truncated: false,
      stopReason: 'found',
    },
    meta: { creditCost: 5 },
  },
} as const satisfies Partial<Record<OperationId, { data: unknown; meta: { creditCost: number } }>>;
