/**
 * Email verify and find through the real app against real servers on loopback: a DNS server
 * (dns2) answering MX, null MX, no MX and SERVFAIL, and SMTP servers that accept, reject, greylist,
 * block, are catch-all, drop the connection, stall, and refuse a second recipient. Each case checks
 * the exact verification object, the charge or refund, and the ledger entry.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostSlots } from '../../shared/limits/host-slots.js';
import { createLogger } from '../../shared/logger.js';
import { expectError } from '../support/assertions.js';
import type { DnsServerHandle } from '../support/dns-server.js';
import { type EmailHarness, startEmailHarness } from '../support/email-harness.js';
import { type Harness, startHarness } from '../support/harness.js';
import { ADDRESSES, type MailServers } from '../support/mail-servers.js';

let dns: DnsServerHandle;
let mail: MailServers;
let harness: Harness;

const host = (address: string) => ({ a: [address] });
const zone = {
  'accept.test': { mx: [[10, 'mx.accept.test']] as [number, string][] },
  'mx.accept.test': host(ADDRESSES.smtp),
  'memory.test': { mx: [[10, 'mx.accept.test']] as [number, string][] },
  'catchall.test': { mx: [[10, 'mx.catchall.test']] as [number, string][] },
  'mx.catchall.test': host(ADDRESSES.smtp),
  'greylist.test': { mx: [[10, 'mx.greylist.test']] as [number, string][] },
  'mx.greylist.test': host(ADDRESSES.smtp),
  'blocked.test': { mx: [[10, 'mx.blocked.test']] as [number, string][] },
  'mx.blocked.test': host(ADDRESSES.smtp),
  'limit.test': { mx: [[10, 'mx.limit.test']] as [number, string][] },
  'mx.limit.test': host(ADDRESSES.smtp),
  'stall.test': { mx: [[10, 'mx.stall.test']] as [number, string][] },
  'mx.stall.test': host(ADDRESSES.stall),
  'drop.test': { mx: [[10, 'mx.drop.test']] as [number, string][] },
  'mx.drop.test': host(ADDRESSES.drop),
  // The lowest preference does not answer (it stalls); the next one does.
  'fallback.test': {
    mx: [
      [5, 'mx.stall.test'],
      [10, 'mx.accept.test'],
    ] as [number, string][],
  },
  'banned.test': { mx: [[10, 'mx.banned.test']] as [number, string][] },
  'mx.banned.test': host(ADDRESSES.banned),
  'nullmx.test': { mx: [[0, '.']] as [number, string][] },
  'nomail.test': {},
  'implicit.test': host(ADDRESSES.smtp),
  'servfail.test': { rcode: 'SERVFAIL' as const },
  'private.test': { mx: [[10, 'mx.private.test']] as [number, string][] },
  'mx.private.test': host('10.0.0.1'),
  // A host without SMTPUTF8 (RFC 6531) alone, and first before one that has it.
  'ascii.test': { mx: [[10, 'mx.ascii.test']] as [number, string][] },
  'mx.ascii.test': host(ADDRESSES.ascii),
  'mixed.test': {
    mx: [
      [5, 'mx.ascii.test'],
      [10, 'mx.accept.test'],
    ] as [number, string][],
  },
};

let email: EmailHarness;

beforeAll(async () => {
  email = await startEmailHarness(zone, {
    SMTP_STEP_TIMEOUT_SECONDS: '1',
    EMAIL_DOMAIN_CACHE_SECONDS: '3600',
  });
  ({ mail, dns, harness } = email);
});
afterAll(async () => email?.close());

async function account(credits = 100) {
  const provisioned = await harness.provision({ credits });
  const ledger = () => harness.repositories.ledger.entries(provisioned.account.accountId);
  return { ...provisioned, ledger };
}

const verify = (apiKey: string, email: string) =>
  harness.get(`/v1/emails/verify?${new URLSearchParams({ email })}`, apiKey);

describe('GET /v1/emails/verify', () => {
  it.each([
    [
      'an existing mailbox',
      'Jane@accept.test',
      { mx: 'mx.accept.test', status: 'valid', reason: 'accepted', isCatchAll: false },
    ],
    [
      'an unknown mailbox (550 5.1.1)',
      'nobody@accept.test',
      { mx: 'mx.accept.test', status: 'invalid', reason: 'rejected', isCatchAll: false },
    ],
    [
      'a catch-all domain',
      'anyone@catchall.test',
      { mx: 'mx.catchall.test', status: 'unverifiable', reason: 'catch_all', isCatchAll: true },
    ],
    [
      'greylisting (451 4.7.1)',
      'jane@greylist.test',
      { mx: 'mx.greylist.test', status: 'unverifiable', reason: 'limited', isCatchAll: false },
    ],
    [
      'a blocklist refusal of our sender (554 5.7.1)',
      'jane@blocked.test',
      { mx: 'mx.blocked.test', status: 'unverifiable', reason: 'spam_block', isCatchAll: false },
    ],
    [
      'a second recipient refused with 452',
      'mjansen@limit.test',
      { mx: 'mx.limit.test', status: 'valid', reason: 'accepted', isCatchAll: false },
    ],
    [
      'a server that drops the connection',
      'jane@drop.test',
      { mx: 'mx.drop.test', status: 'unverifiable', reason: 'mx_error', isCatchAll: false },
    ],
    [
      'a server that stalls past the timeout',
      'jane@stall.test',
      { mx: 'mx.stall.test', status: 'unverifiable', reason: 'timeout', isCatchAll: false },
    ],
    [
      'a banner refusing our sender as blocklisted',
      'jane@banned.test',
      { mx: 'mx.banned.test', status: 'unverifiable', reason: 'spam_block', isCatchAll: false },
    ],
    [
      'an MX that stalls, then the next one, which answers',
      'jane@fallback.test',
      { mx: 'mx.accept.test', status: 'invalid', reason: 'rejected', isCatchAll: false },
    ],
    [
      'a null MX (RFC 7505)',
      'jane@nullmx.test',
      { mx: null, status: 'invalid', reason: 'no_mx', isCatchAll: false },
    ],
    [
      'no MX and no address',
      'jane@nomail.test',
      { mx: null, status: 'invalid', reason: 'no_mx', isCatchAll: false },
    ],
    [
      'no MX but an address (implicit MX)',
      'jane@implicit.test',
      { mx: 'implicit.test', status: 'invalid', reason: 'rejected', isCatchAll: false },
    ],
    [
      'a DNS failure (SERVFAIL)',
      'jane@servfail.test',
      { mx: null, status: 'unverifiable', reason: 'mx_error', isCatchAll: false },
    ],
  ])('answers %s, charged 2', async (_, email, expected) => {
    const subject = await account();
    const response = await verify(subject.apiKey, email);
    expect(response.status).toBe(200);
    const [user, domain] = email.split('@') as [string, string];
    expect(await response.json()).toEqual({
      data: { email, user, domain: domain.toLowerCase(), isDisposable: false, ...expected },
      meta: { creditCost: 2 },
    });
    expect(response.headers.get('x-credits-remaining')).toBe('98');
    expect(await subject.ledger()).toEqual([
      expect.objectContaining({ operation: 'emails.verify', cost: 2, status: 'charged', httpStatus: 200 }),
    ]);
  });

  it.each(['jane@yahoo.com', 'jane@yahoo.co.uk', 'jane@ymail.com', 'jane@rocketmail.com'])(
    'refuses %s with 422 email_unverifiable, not retryable, refunded',
    async (email) => {
      const subject = await account();
      const response = await verify(subject.apiKey, email);
      const body = await expectError(response, 422, 'email_unverifiable');
      expect(body.error.retryable).toBe(false);
      expect(response.headers.get('x-credits-remaining')).toBe('100');
      expect(await subject.ledger()).toEqual([
        expect.objectContaining({ status: 'refunded', refundReason: 'email_unverifiable' }),
      ]);
    },
  );

  it.each([
    ['a space', 'a b@accept.test'],
    ['an unquoted @', 'a@b@accept.test'],
    ['angle brackets', '<jane>@accept.test'],
    ['a closing angle bracket', 'jane>@accept.test'],
    ['a quoted local part', '"a b"@accept.test'],
    ['two dots in a row', 'jane..doe@accept.test'],
    ['a leading dot', '.jane@accept.test'],
    ['a trailing dot', 'jane.@accept.test'],
    ['a comment', 'ja(ne)@accept.test'],
    ['a no-break space', 'ja\u00a0ne@accept.test'],
    ['65 bytes', `${'x'.repeat(65)}@accept.test`],
    ['33 two-byte letters (66 bytes)', `${'é'.repeat(33)}@accept.test`],
  ])('refuses a local part with %s before any charge or dialogue: %s', async (_, address) => {
    const subject = await account();
    const before = { rcpts: mail.rcpts.length, connections: { ...mail.connections } };
    const response = await verify(subject.apiKey, address);
    const body = await expectError(response, 400, 'invalid_request');
    expect(body.error.details).toEqual([
      {
        field: 'email',
        code: 'invalid_format',
        message: expect.stringMatching(/^email local part \(before the last @\) /),
      },
    ]);
    expect(await subject.ledger()).toEqual([]);
    expect({ rcpts: mail.rcpts.length, connections: mail.connections }).toEqual(before);
  });

  it.each([
    ['every mark RFC 5322 allows in an atom', "o'neil+tag!#$%&*/=?^_`{|}~-x@accept.test"],
    ['letters beyond ASCII (RFC 6531)', 'jöhn.doe@accept.test'],
    ['64 bytes', `${'x'.repeat(64)}@accept.test`],
  ])('asks the mail server about a local part with %s', async (_, address) => {
    const subject = await account();
    const before = mail.rcpts.length;
    const response = await verify(subject.apiKey, address);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { status: string } }).data.status).toBe('invalid');
    expect(mail.rcpts.slice(before)).toContain(address.toLowerCase());
  });

  it('never answers 500 nor charges a refusal, whatever the local part', async () => {
    const subject = await account(1_000_000);
    const localPart = fc.string({
      unit: fc.constantFrom(...'a.é+ <>"()[]\\,:;@!%`~\u00a0\u2028\u200b'),
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(localPart, async (local) => {
        const address = `${local}@accept.test`;
        const entries = (await subject.ledger()).length;
        const response = await verify(subject.apiKey, address);
        if (response.status === 400) {
          const body = (await response.json()) as { error: { details: { field: string; code: string }[] } };
          expect(body.error.details).toEqual([
            expect.objectContaining({ field: 'email', code: 'invalid_format' }),
          ]);
          expect(await subject.ledger()).toHaveLength(entries);
        } else {
          expect(response.status).toBe(200);
          const { data } = (await response.json()) as { data: { user: string | null; status: string } };
          expect(data.user).toBe(local === '' ? null : local);
        }
      }),
      { numRuns: 60 },
    );
  });

  describe('a local part beyond ASCII (RFC 6531)', () => {
    /** Verifies `address` for a new account: the answer's data, and what the servers had seen before. */
    const check = async (address: string) => {
      const before = {
        rcpts: mail.rcpts.length,
        smtpUtf8Rcpts: mail.smtpUtf8Rcpts.length,
        ascii: mail.connections.ascii,
      };
      const response = await verify((await account()).apiKey, address);
      return { before, data: ((await response.json()) as { data: unknown }).data };
    };

    it('is asked only of a host advertising SMTPUTF8, in a transaction requesting it', async () => {
      const { before, data } = await check('jöhn@mixed.test');
      expect(data).toMatchObject({ mx: 'mx.accept.test', status: 'valid', reason: 'accepted' });
      // The first host (no SMTPUTF8) was greeted and passed over before any transaction.
      expect(mail.connections.ascii).toBe(before.ascii + 1);
      expect(mail.smtpUtf8Rcpts.slice(before.smtpUtf8Rcpts)).toContain('jöhn@mixed.test');
      expect(mail.rcpts.slice(before.rcpts).every((rcpt) => mail.smtpUtf8Rcpts.includes(rcpt))).toBe(true);
    });

    it('is unverifiable where no host advertises SMTPUTF8, never asked as a malformed address', async () => {
      const { before, data } = await check('jöhn@ascii.test');
      expect(data).toMatchObject({ mx: 'mx.ascii.test', status: 'unverifiable', reason: 'mx_error' });
      expect(mail.connections.ascii).toBe(before.ascii + 1);
      expect(mail.rcpts.length).toBe(before.rcpts);
    });

    it('leaves an ASCII address to any host, without SMTPUTF8', async () => {
      const { before, data } = await check('jane@mixed.test');
      expect(data).toMatchObject({ mx: 'mx.ascii.test', status: 'valid' });
      expect(mail.rcpts.slice(before.rcpts)).toContain('jane@mixed.test');
      expect(mail.smtpUtf8Rcpts.length).toBe(before.smtpUtf8Rcpts);
    });
  });

  it('answers an address with nothing before the @ without asking any server, charged', async () => {
    const subject = await account();
    const before = mail.rcpts.length;
    const response = await verify(subject.apiKey, '@accept.test');
    expect(await response.json()).toEqual({
      data: {
        email: '@accept.test',
        user: null,
        domain: 'accept.test',
        mx: null,
        status: 'invalid',
        reason: 'rejected',
        isCatchAll: false,
        isDisposable: false,
      },
      meta: { creditCost: 2 },
    });
    expect(mail.rcpts.length).toBe(before);
  });

  it('never dials an MX that resolves to a non-public address without UNSAFE_SMTP_ALLOW_HOSTS', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const guarded = await startHarness({
      endpoint: harness.endpoint,
      env: { DNS_SERVERS: dns.address, SMTP_PORT: String(mail.port), SMTP_STEP_TIMEOUT_SECONDS: '1' },
      logger: createLogger('warn', sink),
    });
    try {
      const { apiKey } = await guarded.provision();
      const before = { ...mail.connections };
      for (const [email, reason] of [
        ['jane@accept.test', 'loopback'],
        ['jane@private.test', 'private'],
      ] as const) {
        const response = await guarded.get(`/v1/emails/verify?${new URLSearchParams({ email })}`, apiKey);
        expect(((await response.json()) as { data: { reason: string } }).data.reason).toBe('mx_error');
        expect(lines.join('')).toContain(`"reason":"${reason}"`);
      }
      expect(mail.connections).toEqual(before);
    } finally {
      await guarded.close();
    }
  });
});

const find = (apiKey: string, parameters: Record<string, string>) =>
  harness.get(`/v1/emails/find?${new URLSearchParams(parameters)}`, apiKey);

/** The recipients the real mail server receives while `run` runs: the probe first, then candidates. */
async function received(run: () => Promise<void>): Promise<{ probes: string[]; candidates: string[] }> {
  const before = mail.rcpts.length;
  await run();
  const rcpts = mail.rcpts.slice(before);
  return {
    probes: rcpts.filter((rcpt) => rcpt.startsWith('probe-')),
    candidates: rcpts.filter((rcpt) => !rcpt.startsWith('probe-')),
  };
}

describe('GET /v1/emails/find', () => {
  it('finds the third candidate in one SMTP connection, charged 10, counting every candidate the server was asked about', async () => {
    const subject = await account();
    const before = mail.connections.smtp;
    let response!: Response;
    const rcpts = await received(async () => {
      response = await find(subject.apiKey, {
        firstName: 'Marieke',
        lastName: 'Jansen',
        domain: 'accept.test',
      });
    });
    expect(response.status).toBe(200);
    // smtp-server pipelines: [probe], [candidates 1, 2], [candidates 3 to 9], answered whole.
    expect(rcpts.probes).toHaveLength(1);
    expect(rcpts.candidates).toHaveLength(9);
    expect(await response.json()).toEqual({
      data: {
        email: 'mjansen@accept.test',
        status: 'found',
        isCatchAll: false,
        isDisposable: false,
        candidatesChecked: 9,
        verification: { mx: 'mx.accept.test', status: 'valid', reason: 'accepted' },
      },
      meta: { creditCost: 10 },
    });
    expect(mail.connections.smtp - before).toBe(1);
    expect(response.headers.get('x-credits-remaining')).toBe('90');
  });

  it('finds a name with accents and a particle', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Renée',
      lastName: 'van der Berg',
      domain: 'accept.test',
    });
    const body = (await response.json()) as { data: { email: string; status: string } };
    expect(body.data).toMatchObject({ email: 'renee.vanderberg@accept.test', status: 'found' });
  });

  it('tries only first-name addresses without a last name', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, { firstName: 'Jane', domain: 'accept.test' });
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({
      email: 'jane@accept.test',
      status: 'found',
      candidatesChecked: 1,
    });
  });

  it('answers a catch-all domain after one probe, with no address and no candidate checked', async () => {
    const subject = await account();
    let response!: Response;
    const rcpts = await received(async () => {
      response = await find(subject.apiKey, { firstName: 'Jane', lastName: 'Doe', domain: 'catchall.test' });
    });
    // The probe's acceptance answers the question: no candidate is sent to a catch-all domain.
    expect(rcpts).toEqual({ probes: [expect.stringMatching(/@catchall\.test$/)], candidates: [] });
    expect(((await response.json()) as { data: unknown }).data).toEqual({
      email: null,
      status: 'catch_all',
      isCatchAll: true,
      isDisposable: false,
      candidatesChecked: 0,
      verification: { mx: 'mx.catchall.test', status: 'unverifiable', reason: 'catch_all' },
    });
    // The next find on the domain answers from what the first one learned, without a session.
    const before = mail.connections.smtp;
    const again = await find(subject.apiKey, { firstName: 'John', lastName: 'Roe', domain: 'catchall.test' });
    expect(((await again.json()) as { data: { status: string } }).data.status).toBe('catch_all');
    expect(mail.connections.smtp).toBe(before);
  });

  it('tries the pattern that worked on the domain first next time', async () => {
    const subject = await account(100);
    const first = await find(subject.apiKey, {
      firstName: 'Marieke',
      lastName: 'Jansen',
      domain: 'memory.test',
    });
    expect(((await first.json()) as { data: unknown }).data).toMatchObject({
      email: 'mjansen@memory.test',
      candidatesChecked: 9,
    });
    let second!: Response;
    const rcpts = await received(async () => {
      second = await find(subject.apiKey, { firstName: 'Pieter', lastName: 'Visser', domain: 'memory.test' });
    });
    // The remembered pattern (flast) leads the first group of two, with the most likely other.
    expect(rcpts.candidates).toEqual(['pvisser@memory.test', 'pieter.visser@memory.test']);
    expect(((await second.json()) as { data: unknown }).data).toMatchObject({
      email: 'pvisser@memory.test',
      candidatesChecked: 2,
    });
  });

  it('answers a domain without a mail server with no_mx, charged', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Jane',
      lastName: 'Doe',
      domain: 'nullmx.test',
    });
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({
      email: null,
      status: 'no_mx',
      candidatesChecked: 0,
    });
    expect(response.headers.get('x-credits-remaining')).toBe('90');
  });

  it('charges a search that finds nothing', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Nobody',
      lastName: 'Here',
      domain: 'accept.test',
    });
    const body = (await response.json()) as { data: { status: string; candidatesChecked: number } };
    expect(body.data.status).toBe('not_found');
    expect(body.data.candidatesChecked).toBe(16);
    expect(response.headers.get('x-credits-remaining')).toBe('90');
  });

  it('refunds a find whose DNS fails', async () => {
    const subject = await account();
    const response = await find(subject.apiKey, {
      firstName: 'Jane',
      lastName: 'Doe',
      domain: 'servfail.test',
    });
    await expectError(response, 502, 'upstream_error');
    expect(response.headers.get('x-credits-remaining')).toBe('100');
  });

  it.each([
    [{ firstName: '123', domain: 'accept.test' }, 'firstName', 'invalid_format'],
    [{ firstName: 'Jane', lastName: '--', domain: 'accept.test' }, 'lastName', 'invalid_format'],
    [{ firstName: 'J'.repeat(65), domain: 'accept.test' }, 'firstName', 'too_long'],
    [{ firstName: 'Jane', domain: '-accept.test' }, 'domain', 'invalid_format'],
    [{ firstName: 'Jane', domain: 'ab' }, 'domain', 'invalid_value'],
    [{ firstName: 'Jane' }, 'domain', 'invalid_value'],
  ])('refuses %j with a detail on %s', async (parameters, field, code) => {
    const subject = await account();
    const body = await expectError(await find(subject.apiKey, parameters), 400, 'invalid_request');
    expect(body.error.details).toContainEqual(expect.objectContaining({ field, code }));
  });
});

describe('per-MX concurrency', () => {
  it('answers 503 capacity_exceeded with Retry-After, refunded, while every session slot of the MX is held', async () => {
    const limited = await startHarness({
      endpoint: harness.endpoint,
      env: {
        DNS_SERVERS: dns.address,
        SMTP_PORT: String(mail.port),
        UNSAFE_SMTP_ALLOW_HOSTS: mail.allowHosts,
        SMTP_MAX_SESSIONS_PER_MX: '1',
      },
    });
    const capacity = new HostSlots(limited.store, limited.clock, 'smtp', 1, 60_000);
    try {
      const { apiKey, account: owner } = await limited.provision({ credits: 10 });
      const held = await capacity.acquire('mx.accept.test');
      expect(held).toBeDefined();
      const response = await limited.get('/v1/emails/verify?email=jane%40accept.test', apiKey);
      const body = await expectError(response, 503, 'capacity_exceeded');
      expect(body.error.retryable).toBe(true);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('x-credits-remaining')).toBe('10');
      expect(await limited.repositories.ledger.entries(owner.accountId)).toEqual([
        expect.objectContaining({ status: 'refunded', refundReason: 'capacity_exceeded' }),
      ]);
      await held?.release();
      expect((await limited.get('/v1/emails/verify?email=jane%40accept.test', apiKey)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
