/**
 * Verify and find against a real Postfix on loopback (test/support/postfix.ts), through the real
 * app: one service talks to the Postfix listener that advertises PIPELINING, another to the one that
 * does not, and both must give the same answers; what Postfix logged says how many recipients each
 * find cost, which `candidatesChecked` must match. Postfix is started once for the file and stopped
 * afterwards. Skipped, with the reason in its title, only where Postfix is not installed or cannot
 * be started (not root); .ci/run installs it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { candidates, nameParts, nameSpellings } from '../../shared/emails/candidates.js';
import { SmtpSession } from '../../shared/emails/smtp-session.js';
import { type DnsServerHandle, startDnsServer } from '../support/dns-server.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type PostfixHandle, postfixUnavailable, startPostfix } from '../support/postfix.js';

const DOMAIN = 'postfix.test';
const CATCH_ALL = 'catchall.postfix.test';
const unavailable = postfixUnavailable();

/** The name's candidate at `rank` (1-based), as a local part. */
function localAt(firstName: string, lastName: string, rank: number): string {
  const list = candidates(nameParts(nameSpellings(firstName), nameSpellings(lastName)), DOMAIN);
  const address = list[rank - 1]?.address ?? '';
  return address.slice(0, address.indexOf('@'));
}

/** Names whose mailbox is their candidate at rank 1, 2 and 9. */
const HITS = [
  { rank: 1, name: { firstName: 'Anna', lastName: 'Bakker' } },
  { rank: 2, name: { firstName: 'Sven', lastName: 'Dijkstra' } },
  { rank: 9, name: { firstName: 'Lotte', lastName: 'Smit' } },
] as const;

describe.skipIf(unavailable !== null)(
  `Postfix on loopback, pipelined and lock-step${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let postfix: PostfixHandle | undefined;
    let dns: DnsServerHandle | undefined;
    const services: Partial<Record<'pipelined' | 'lockStep', Harness>> = {};
    let startFailure: string | null = null;

    beforeAll(async () => {
      try {
        postfix = await startPostfix({
          domain: DOMAIN,
          mailboxes: [
            'jane',
            'mjansen',
            ...HITS.map(({ rank, name }) => localAt(name.firstName, name.lastName, rank)),
          ],
          catchAllDomain: CATCH_ALL,
        });
      } catch (error) {
        startFailure = (error as Error).message;
        console.warn(`Skipping the Postfix tests: ${startFailure}`);
        return;
      }
      dns = await startDnsServer({
        [DOMAIN]: { mx: [[10, `mx.${DOMAIN}`]] },
        [CATCH_ALL]: { mx: [[10, `mx.${DOMAIN}`]] },
        [`mx.${DOMAIN}`]: { a: ['127.0.0.1'] },
      });
      for (const [name, port] of [
        ['pipelined', postfix.pipeliningPort],
        ['lockStep', postfix.lockStepPort],
      ] as const) {
        services[name] = await startHarness({
          env: {
            DNS_SERVERS: dns.address,
            SMTP_PORT: String(port),
            UNSAFE_SMTP_ALLOW_HOSTS: `127.0.0.1:${port}`,
            SMTP_STEP_TIMEOUT_SECONDS: '5',
            EMAIL_DOMAIN_CACHE_SECONDS: '0',
          },
        });
      }
    }, 30_000);

    afterAll(async () => {
      for (const service of Object.values(services)) await service.close();
      await dns?.close();
      await postfix?.stop();
    }, 30_000);

    /** The `data` of a GET through both services, pipelined first. */
    async function bothWays(path: string): Promise<[unknown, unknown]> {
      const answers = [];
      for (const service of [services.pipelined, services.lockStep]) {
        if (!service) throw new Error('the service did not start');
        const { apiKey } = await service.provision({ credits: 100 });
        const response = await service.get(path, apiKey);
        expect(response.status).toBe(200);
        answers.push(((await response.json()) as { data: unknown }).data);
      }
      return answers as [unknown, unknown];
    }

    it('answers a pipelined group in order on one listener, and leaves PIPELINING out on the other', async (context) => {
      if (startFailure || !postfix) return context.skip(`Postfix did not start: ${startFailure}`);
      const open = (port: number) =>
        SmtpSession.open({
          address: '127.0.0.1',
          port,
          serverName: `mx.${DOMAIN}`,
          heloName: 'verifier.invalid',
          timeouts: { connectMs: 5_000, greetingMs: 5_000, commandMs: 5_000 },
          signal: AbortSignal.timeout(20_000),
        });
      const session = await open(postfix.pipeliningPort);
      try {
        expect(session.pipelining).toBe(true);
        const replies = await session.sendGroup([
          { verb: 'mail', address: 'probe@verifier.invalid' },
          { verb: 'rcpt', address: `nobody@${DOMAIN}` },
          { verb: 'rcpt', address: `jane@${DOMAIN}` },
        ]);
        expect(replies.map((reply) => [reply.code, reply.enhancedCode])).toEqual([
          [250, '2.1.0'],
          [550, '5.1.1'],
          [250, '2.1.5'],
        ]);
        expect(session.roundTrips).toBe(3);
      } finally {
        await session.quit();
      }
      const lockStep = await open(postfix.lockStepPort);
      expect(lockStep.pipelining).toBe(false);
      await lockStep.quit();
    });

    it.for([
      {
        mailbox: 'an existing mailbox',
        email: `jane@${DOMAIN}`,
        expected: { status: 'valid', reason: 'accepted' },
      },
      {
        mailbox: 'an unknown mailbox',
        email: `nobody@${DOMAIN}`,
        expected: { status: 'invalid', reason: 'rejected' },
      },
    ])('verifies $mailbox the same way pipelined and in lock-step', async ({ email, expected }, context) => {
      if (startFailure) return context.skip(`Postfix did not start: ${startFailure}`);
      const [pipelined, lockStep] = await bothWays(`/v1/emails/verify?${new URLSearchParams({ email })}`);
      expect(pipelined).toEqual(lockStep);
      expect(pipelined).toMatchObject({ mx: `mx.${DOMAIN}`, isCatchAll: false, ...expected });
    });

    it.for([
      {
        outcome: 'on its third candidate',
        name: { firstName: 'Marieke', lastName: 'Jansen' },
        // Pipelined, the third candidate opens the third group, candidates 3 to 9.
        expected: { answer: { status: 'found', email: `mjansen@${DOMAIN}` }, checked: [9, 3] },
      },
      {
        outcome: 'nothing after 16 candidates',
        name: { firstName: 'Pieter', lastName: 'Visser' },
        expected: { answer: { status: 'not_found', email: null }, checked: [16, 16] },
      },
    ])('finds $outcome the same way pipelined and in lock-step', async ({ name, expected }, context) => {
      if (startFailure) return context.skip(`Postfix did not start: ${startFailure}`);
      const pipelined = await findLogged(services.pipelined, { ...name, domain: DOMAIN });
      const lockStep = await findLogged(services.lockStep, { ...name, domain: DOMAIN });
      expect({ ...pipelined.data, candidatesChecked: 0 }).toEqual({ ...lockStep.data, candidatesChecked: 0 });
      expect(pipelined.data).toMatchObject(expected.answer);
      for (const { data, rcpts } of [pipelined, lockStep]) expect(data.candidatesChecked).toBe(rcpts - 1);
      expect([pipelined.data.candidatesChecked, lockStep.data.candidatesChecked]).toEqual(expected.checked);
    });

    /**
     * A find through `service`, with what Postfix logged for its sessions: the RCPT commands it
     * received, from each session's `disconnect` line (QUIT ends the session).
     */
    async function findLogged(service: Harness | undefined, parameters: Record<string, string>) {
      if (!service || !postfix) throw new Error('the service did not start');
      const handle = postfix;
      const from = (await handle.log()).length;
      const { apiKey } = await service.provision({ credits: 100 });
      const response = await service.get(`/v1/emails/find?${new URLSearchParams(parameters)}`, apiKey);
      expect(response.status).toBe(200);
      const data = ((await response.json()) as { data: { candidatesChecked: number } }).data;
      const logged = await vi.waitFor(async () => {
        const text = (await handle.log()).slice(from);
        expect(text).toContain(' disconnect from ');
        return text;
      });
      const rcpts = [...logged.matchAll(/ disconnect from .* rcpt=(\d+)(?:\/(\d+))?/g)].reduce(
        (sum, [, accepted, total]) => sum + Number(total ?? accepted),
        0,
      );
      return { data, rcpts };
    }

    it.for(HITS)(
      'finds at rank $rank with the probe and few candidates, candidatesChecked the RCPTs Postfix logged less the probe',
      async ({ rank, name }, context) => {
        if (startFailure) return context.skip(`Postfix did not start: ${startFailure}`);
        const pipelined = await findLogged(services.pipelined, { ...name, domain: DOMAIN });
        const lockStep = await findLogged(services.lockStep, { ...name, domain: DOMAIN });
        expect({ ...pipelined.data, candidatesChecked: 0 }).toEqual({
          ...lockStep.data,
          candidatesChecked: 0,
        });
        expect(pipelined.data).toMatchObject({
          status: 'found',
          email: `${localAt(name.firstName, name.lastName, rank)}@${DOMAIN}`,
        });
        for (const { data, rcpts } of [pipelined, lockStep]) expect(data.candidatesChecked).toBe(rcpts - 1);
        // Pipelined, the first group holds two candidates, the second the next seven.
        const expected = { 1: [2, 1], 2: [2, 2], 9: [9, 9] }[rank];
        expect([pipelined.data.candidatesChecked, lockStep.data.candidatesChecked]).toEqual(expected);
      },
    );

    it('asks a catch-all domain one RCPT, the probe, pipelined and in lock-step', async (context) => {
      if (startFailure) return context.skip(`Postfix did not start: ${startFailure}`);
      for (const service of [services.pipelined, services.lockStep]) {
        const { data, rcpts } = await findLogged(service, {
          firstName: 'John',
          lastName: 'Smith',
          domain: CATCH_ALL,
        });
        expect(data).toMatchObject({ status: 'catch_all', email: null, candidatesChecked: 0 });
        expect(rcpts).toBe(1);
      }
    });

    it('logged no improper pipelining: lock-step waited for every reply where PIPELINING was left out', async (context) => {
      if (startFailure || !postfix) return context.skip(`Postfix did not start: ${startFailure}`);
      const log = await postfix.log();
      expect(log).toContain('discarding EHLO keywords: PIPELINING');
      expect(log).not.toContain('improper command pipelining');
    });
  },
);
