/**
 * The email operations as MCP tools (the `emails` toolset, beyond the spec's catalog), against real
 * DNS and SMTP servers on loopback: each tool answers the REST body of the same call and bills it
 * as REST does, charged, free or refunded; `?toolsets=emails` lists exactly these three tools, and
 * the default list stays the spec's 35 without them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import type { Zone } from '../support/dns-server.js';
import { type EmailHarness, startEmailHarness } from '../support/email-harness.js';
import { ADDRESSES } from '../support/mail-servers.js';
import { connectClient, ERAS, type ListeningApp, listen } from '../support/mcp-server.js';
import { callToolAndRest } from '../support/tool-and-rest.js';

const EMAIL_TOOLS = ['check_disposable_email', 'verify_email', 'find_email'];

const zone: Zone = {
  'mx.accept.test': { a: [ADDRESSES.smtp] },
  'accept.test': { mx: [[10, 'mx.accept.test']] },
  // The same mail server and mailboxes: find remembers a domain's pattern, so REST asks the twin.
  'memory.test': { mx: [[10, 'mx.accept.test']] },
  'servfail.test': { rcode: 'SERVFAIL' },
};

let email: EmailHarness;
let app: ListeningApp;
let emailsUrl: string;

beforeAll(async () => {
  email = await startEmailHarness(zone);
  app = await listen(email.harness);
  emailsUrl = `${app.url}?toolsets=emails`;
});
afterAll(async () => {
  await app?.close();
  await email?.close();
});

async function listedNames(url: string): Promise<string[]> {
  const { apiKey } = await email.harness.provision();
  const client = await connectClient(url, apiKey);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('listing', () => {
  it('lists exactly the three email tools under ?toolsets=emails, both email groups', async () => {
    expect(await listedNames(emailsUrl)).toEqual(EMAIL_TOOLS);
    expect(await listedNames(`${app.url}?toolsets=emails-smtp`)).toEqual(['verify_email', 'find_email']);
  });

  it('keeps the default list the spec’s 35 tools, none of them an email tool', async () => {
    const names = await listedNames(app.url);
    expect(names).toHaveLength(35);
    expect(names).toEqual(defaultToolNames(catalog));
    for (const tool of EMAIL_TOOLS) expect(names).not.toContain(tool);
  });

  it('publishes the public query parameters as the arguments', async () => {
    const { apiKey } = await email.harness.provision();
    const client = await connectClient(emailsUrl, apiKey);
    try {
      const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
      expect(tools.get('verify_email')?.inputSchema).toMatchObject({
        properties: { email: { type: 'string' } },
        required: ['email'],
      });
      const find = tools.get('find_email')?.inputSchema;
      expect(Object.keys(find?.properties ?? {})).toEqual(['firstName', 'lastName', 'domain']);
      expect(find?.required).toEqual(['firstName', 'domain']);
      // A mailbox that does not exist is a conclusive, charged answer: no promise of a refund on a miss.
      expect(tools.get('find_email')?.description).toContain('Costs 10 credits per call.');
      expect(tools.get('verify_email')?.description).not.toMatch(/matches nothing is refunded/);
      expect(tools.get('check_disposable_email')?.description?.match(/Free\./g)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe.each(ERAS)('calls in the %s era, each against REST', (era) => {
  it('check_disposable_email: the REST body, free', async () => {
    const { tool, rest } = await callToolAndRest(
      email.harness,
      emailsUrl,
      {
        tool: 'check_disposable_email',
        arguments: { email: 'someone@mailinator.com' },
        path: '/v1/emails/disposable',
      },
      era,
    );
    expect(rest.status).toBe(200);
    expect(tool.result.isError).toBeFalsy();
    expect(tool.body).toEqual(rest.body);
    expect(rest.body).toMatchObject({ data: { isDisposable: true }, meta: { creditCost: 0 } });
    expect(tool.ledger).toEqual(rest.ledger);
  });

  it('verify_email: the REST body, charged 2 credits as REST is', async () => {
    const { tool, rest } = await callToolAndRest(
      email.harness,
      emailsUrl,
      {
        tool: 'verify_email',
        arguments: { email: 'jane@accept.test' },
        path: '/v1/emails/verify',
      },
      era,
    );
    expect(rest.status).toBe(200);
    expect(tool.status).toBe(200);
    expect(tool.body).toEqual(rest.body);
    expect(rest.body).toMatchObject({ data: { status: 'valid', reason: 'accepted' } });
    expect(tool.creditsRemaining).toBe('98');
    expect(tool.creditsRemaining).toBe(rest.creditsRemaining);
    expect(tool.ledger).toEqual([
      { operation: 'emails.verify', cost: 2, status: 'charged', httpStatus: 200 },
    ]);
    expect(tool.ledger).toEqual(rest.ledger);
  });

  it('verify_email: a consumer mailbox refused 422 and refunded, as REST does', async () => {
    const { tool, rest } = await callToolAndRest(
      email.harness,
      emailsUrl,
      {
        tool: 'verify_email',
        arguments: { email: 'jane@yahoo.com' },
        path: '/v1/emails/verify',
      },
      era,
    );
    expect(rest.status).toBe(422);
    expect(tool.status).toBe(422);
    expect(tool.result.isError).toBe(true);
    expect(tool.body).toEqual(rest.body);
    expect(tool.creditsRemaining).toBe('100');
    expect(tool.creditsRemaining).toBe(rest.creditsRemaining);
    expect(tool.ledger).toEqual([
      expect.objectContaining({ status: 'refunded', refundReason: 'email_unverifiable' }),
    ]);
    expect(tool.ledger).toEqual(rest.ledger);
  });

  it('find_email: the REST body, charged 10 credits as REST is', async () => {
    const { tool, rest } = await callToolAndRest(
      email.harness,
      emailsUrl,
      {
        tool: 'find_email',
        arguments: { firstName: 'Marc', lastName: 'Jansen', domain: 'accept.test' },
        path: '/v1/emails/find',
        restQuery: { firstName: 'Marc', lastName: 'Jansen', domain: 'memory.test' },
      },
      era,
    );
    expect(rest.status).toBe(200);
    expect(tool.status).toBe(200);
    expect(tool.body).toEqual(JSON.parse(JSON.stringify(rest.body).replaceAll('memory.test', 'accept.test')));
    expect(tool.body).toMatchObject({ data: { email: 'mjansen@accept.test', status: 'found' } });
    expect(tool.creditsRemaining).toBe('90');
    expect(tool.creditsRemaining).toBe(rest.creditsRemaining);
    expect(tool.ledger).toEqual(rest.ledger);
  });

  it('find_email: a domain whose DNS fails answers 502 and is refunded, as REST does', async () => {
    const { tool, rest } = await callToolAndRest(
      email.harness,
      emailsUrl,
      {
        tool: 'find_email',
        arguments: { firstName: 'Jane', lastName: 'Doe', domain: 'servfail.test' },
        path: '/v1/emails/find',
      },
      era,
    );
    expect(rest.status).toBe(502);
    expect(tool.status).toBe(502);
    expect(tool.body).toEqual(rest.body);
    expect(tool.creditsRemaining).toBe('100');
    expect(tool.creditsRemaining).toBe(rest.creditsRemaining);
    expect(tool.ledger).toEqual([
      expect.objectContaining({ status: 'refunded', refundReason: 'upstream_error' }),
    ]);
    expect(tool.ledger).toEqual(rest.ledger);
  });
});
