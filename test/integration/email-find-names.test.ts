/**
 * Email find with names in other scripts, and verify and find with internationalized domains,
 * through the real app against real DNS and SMTP servers on loopback: names are transliterated to
 * ASCII before candidates are built (Cyrillic, Greek, CJK; German umlauts as ae/oe/ue and then as
 * plain vowels), and a name no spelling can write in an address is a 400 that costs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assertions.js';
import type { Zone } from '../support/dns-server.js';
import { type EmailHarness, startEmailHarness } from '../support/email-harness.js';
import type { Harness } from '../support/harness.js';
import { ADDRESSES, type MailServers } from '../support/mail-servers.js';

let mail: MailServers;
let harness: Harness;

/** Each domain its own, so that what find remembers about one (its pattern) cannot steer another. */
const DOMAINS = [
  'accept.test',
  'cyrillic.test',
  'greek.test',
  'han.test',
  'umlauts.test',
  'plain-vowels.test',
  'xn--bcher-kva.test',
];
const zone: Zone = {
  'mx.accept.test': { a: [ADDRESSES.smtp] },
  ...Object.fromEntries(DOMAINS.map((domain) => [domain, { mx: [[10, 'mx.accept.test']] }])),
};

let email: EmailHarness;

beforeAll(async () => {
  email = await startEmailHarness(zone);
  ({ mail, harness } = email);
});
afterAll(async () => email?.close());

async function account(credits = 100) {
  const provisioned = await harness.provision({ credits });
  const balance = async () =>
    (await harness.repositories.ledger.state(provisioned.account.accountId)).balance;
  return { ...provisioned, balance };
}

const find = (apiKey: string, parameters: Record<string, string>) =>
  harness.get(`/v1/emails/find?${new URLSearchParams(parameters)}`, apiKey);

interface FindData {
  email: string | null;
  status: string;
  candidatesChecked: number;
}

describe('find transliterates names to ASCII before building candidates', () => {
  it.each([
    [
      'Cyrillic',
      { firstName: 'Иван', lastName: 'Петров', domain: 'cyrillic.test' },
      'ivan.petrov@cyrillic.test',
      2,
    ],
    [
      'Greek',
      { firstName: 'Γιώργος', lastName: 'Παπαδόπουλος', domain: 'greek.test' },
      'giorgos.papadopoulos@greek.test',
      2,
    ],
    ['CJK, first name only', { firstName: '李', domain: 'han.test' }, 'li@han.test', 1],
    [
      'German umlauts as ae/oe/ue, tried first',
      { firstName: 'Jürgen', lastName: 'Müller', domain: 'umlauts.test' },
      'juergen.mueller@umlauts.test',
      2,
    ],
    [
      'German umlauts as plain vowels, tried next',
      { firstName: 'Jürgen', lastName: 'Müller', domain: 'plain-vowels.test' },
      'jurgen.muller@plain-vowels.test',
      2,
    ],
  ])('%s: finds %j', async (_, parameters, email, candidatesChecked) => {
    const subject = await account();
    const before = mail.rcpts.length;
    const response = await find(subject.apiKey, parameters);
    expect(response.status, await response.clone().text()).toBe(200);
    const { data } = (await response.json()) as { data: FindData };
    expect(data).toMatchObject({ email, status: 'found', candidatesChecked });
    // The two most likely candidates go in one group: both are asked, whichever is the hit.
    const candidates = mail.rcpts.slice(before).filter((rcpt) => !rcpt.startsWith('probe-'));
    expect(new Set(candidates).size).toBe(candidatesChecked);
    expect(await subject.balance()).toBe(90);
  });

  it('reads a name sent decomposed (NFD) as the same name', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Jürgen'.normalize('NFD'),
      lastName: 'Müller'.normalize('NFD'),
      domain: 'umlauts.test',
    });
    expect(((await response.json()) as { data: FindData }).data.email).toBe('juergen.mueller@umlauts.test');
  });

  it('stays within 16 candidates with both umlaut spellings', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Jürgen',
      lastName: 'Müller',
      domain: 'accept.test',
    });
    const { data } = (await response.json()) as { data: FindData };
    expect(data).toMatchObject({ email: null, status: 'not_found', candidatesChecked: 16 });
  });
});

describe('find refuses a name no spelling can write in an address, uncharged', () => {
  it.each([
    ['firstName', { firstName: 'ꓮꓲ', lastName: 'Petrov', domain: 'cyrillic.test' }],
    ['lastName', { firstName: 'Ivan', lastName: '𐌰𐌱', domain: 'cyrillic.test' }],
  ])(
    'answers 400 invalid_value on %s before admission: no debit, no ledger entry, no request counted',
    async (field, parameters) => {
      const subject = await account();
      const before = mail.connections.smtp;
      const response = await find(subject.apiKey, parameters);
      const body = await expectError(response, 400, 'invalid_request');
      expect(body.error.details).toEqual([expect.objectContaining({ field, code: 'invalid_value' })]);
      expect(await subject.balance()).toBe(100);
      expect(await harness.repositories.ledger.entries(subject.account.accountId)).toEqual([]);
      expect(mail.connections.smtp).toBe(before);
      // The next call sees the whole allowance: the refusal took none of it.
      const next = await harness.get('/v1/emails/disposable?email=a%40b.com', subject.apiKey);
      expect(next.headers.get('x-ratelimit-remaining')).toBe(
        String(Number(next.headers.get('x-ratelimit-limit')) - 1),
      );
    },
  );
});

describe('verify and find take an internationalized domain in its ASCII form', () => {
  it('verifies jane@Bücher.test. as jane@xn--bcher-kva.test', async () => {
    const subject = await account();
    const response = await harness.get(
      `/v1/emails/verify?${new URLSearchParams({ email: 'jane@Bücher.test.' })}`,
      subject.apiKey,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({
      domain: 'xn--bcher-kva.test',
      status: 'valid',
    });
  });

  it('finds Jane at BÜCHER.test', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, { firstName: 'Jane', domain: 'BÜCHER.test' });
    expect(((await response.json()) as { data: FindData }).data).toMatchObject({
      email: 'jane@xn--bcher-kva.test',
      status: 'found',
    });
  });
});
