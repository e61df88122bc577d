/**
 * One domain rule for every domain input, through the real app: the disposable check, verify and
 * find (the domain of an address, find's domain) and company search by domain all lower-case,
 * convert internationalized names to ASCII, remove exactly one trailing dot, and refuse a domain
 * with an empty label as invalid_format. (Verify and find with a domain that passes go on to DNS;
 * test/integration/email-find-names.test.ts runs those against loopback servers.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { type Harness, startHarness } from '../support/harness.js';

let harness: Harness;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  harness = await startHarness();
  const provisioned = await harness.provision({ credits: 10_000 });
  apiKey = provisioned.apiKey;
  accountId = provisioned.account.accountId;
});
afterAll(() => harness.close());

const get = (path: string, parameters: Record<string, string>) =>
  harness.get(`${path}?${new URLSearchParams(parameters)}`, apiKey);

/** Each domain input, as the parameters that carry a given domain. */
const domainInputs: [
  operation: string,
  path: string,
  field: string,
  carry: (domain: string) => Record<string, string>,
][] = [
  ['disposable check', '/v1/emails/disposable', 'email', (domain) => ({ email: `x@${domain}` })],
  ['verify', '/v1/emails/verify', 'email', (domain) => ({ email: `jane@${domain}` })],
  ['find', '/v1/emails/find', 'domain', (domain) => ({ firstName: 'Jane', lastName: 'Doe', domain })],
  ['company search by domain', '/v1/companies/search/by-domain', 'domain', (domain) => ({ domain })],
];

const emptyLabels = ['mailinator.com..', 'example..com', '.example.com', 'example.com...', 'example。。com'];

describe.each(domainInputs)('%s', (_, path, field, carry) => {
  it.each(emptyLabels)('refuses %s (an empty label) as invalid_format, uncharged', async (domain) => {
    const before = await balance();
    const response = await get(path, carry(domain));
    const body = await expectError(response, 400, 'invalid_request');
    const detail = body.error.details.find((candidate) => candidate.field === field);
    expect(detail, JSON.stringify(body.error.details)).toMatchObject({ code: 'invalid_format' });
    expect(detail?.message).toMatch(/empty label/);
    expect(await balance()).toBe(before);
  });

  it.each(['-example.com', 'example', '1.2.3.4', 'exa mple.com', 'example.com/path'])(
    'refuses %s as invalid_format',
    async (domain) => {
      const body = await expectError(await get(path, carry(domain)), 400, 'invalid_request');
      expect(body.error.details).toContainEqual(expect.objectContaining({ field, code: 'invalid_format' }));
    },
  );
});

const balance = async () => (await harness.repositories.ledger.state(accountId)).balance;

describe('the disposable check reads the normalized domain', () => {
  it.each([
    ['x@mailinator.com.', 'mailinator.com', true],
    ['x@MAILINATOR.COM', 'mailinator.com', true],
    ['x@mailinator。com', 'mailinator.com', true],
    ['x@Bücher.Example.', 'xn--bcher-kva.example', false],
  ])('%s → %s', async (email, domain, isDisposable) => {
    const response = await get('/v1/emails/disposable', { email });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toEqual({ domain, isDisposable });
  });
});

describe('company search by domain takes the same forms', () => {
  const slugsFor = async (domain: string) => {
    const response = await get('/v1/companies/search/by-domain', { domain });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { data: { companies: { slug: string }[] } };
    return body.data.companies.map((company) => company.slug);
  };

  it('accepts an internationalized domain (bücher.de) as the email tools do', async () => {
    expect(await slugsFor('bücher.de')).toEqual(await slugsFor('xn--bcher-kva.de'));
  });

  it('reads upper case and one trailing dot as the plain domain', async () => {
    const plain = await slugsFor(fx.sharedDomain.domain);
    expect(plain.length).toBeGreaterThan(0);
    expect(await slugsFor(`${fx.sharedDomain.domain.toUpperCase()}.`)).toEqual(plain);
  });
});
