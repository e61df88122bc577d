/**
 * The service as a client sees it, over HTTP only, against every running target (test/support/
 * service-targets.ts): one lookup per v1 data family, one /api/v2 lookup, the free disposable check,
 * an email verify against a loopback SMTP server, a website page rendered through Chromium, /mcp with
 * the SDK's real client, the catch-all, and the refusals (no key, a bad parameter). Each case checks
 * the status, the envelope, the headers a client relies on and the credits it was charged. Nothing here
 * reads the service's store or code: a balance is what the service answers in X-Credits-Remaining.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, type OperationId } from '../../schemas/catalog.js';
import { successEnvelopeSchema, v2EnvelopeSchema } from '../../schemas/envelope.js';
import { defaultToolNames, type OperationDefinition } from '../../schemas/operation-definition.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { expectError } from '../support/assertions.js';
import { type DnsServerHandle, startDnsServer } from '../support/dns-server.js';
import { ADDRESSES, type MailServers, startMailServers } from '../support/mail-servers.js';
import { connectClient, connectEraClient } from '../support/mcp-server.js';
import { sampleRequests, unknownIdentifiers } from '../support/sample-inputs.js';
import { type RunningService, serviceTargets } from '../support/service-targets.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

const SERVICE_DOMAIN = 'blackbox.test';
const operations: readonly OperationDefinition[] = catalog;

function operationOf(id: OperationId): OperationDefinition {
  const found = operations.find((operation) => operation.id === id);
  if (!found) throw new Error(`no catalog operation ${id}`);
  return found;
}

const query = (parameters: Record<string, string>) => new URLSearchParams(parameters).toString();

/** The first path variant of an operation with the sample inputs, identifiers from `values` if given. */
function sampleUrl(id: OperationId, values?: Record<string, Record<string, string>>): string {
  const [sample] = sampleRequests(operationOf(id), values);
  if (!sample) throw new Error(`${id} has no v1 path`);
  return `${sample.path}?${query(sample.parameters)}`;
}

/** One v1 lookup per data family, with a value of the dataset's known record it must answer. */
const familyLookups: { id: OperationId; expected: Record<string, unknown> }[] = [
  {
    id: 'profiles.details',
    expected: { username: fx.richProfile.username, fullName: fx.richProfile.fullName },
  },
  { id: 'companies.details', expected: { slug: fx.richCompany.slug, name: fx.richCompany.name } },
  { id: 'posts.details', expected: { authorUsername: fx.post.authorUsername } },
  { id: 'jobs.details', expected: { jobId: fx.jobId, companySlug: fx.richCompany.slug } },
  {
    id: 'search.people',
    expected: {
      people: expect.arrayContaining([
        expect.objectContaining({ headline: expect.stringMatching(/engineer/i) }),
      ]),
    },
  },
];

const zone = {
  'accept.test': { mx: [[10, 'mx.accept.test']] as [number, string][] },
  'mx.accept.test': { a: [ADDRESSES.smtp] },
};
const page = `<!doctype html><html><head><title>A page</title></head><body><h1>Hello</h1><p>First paragraph.</p><script>document.body.insertAdjacentHTML('beforeend', '<p>Rendered by script.</p>')</script></body></html>`;

const mcpToolNames = defaultToolNames(operations);

describe.each(serviceTargets())('$name', (target) => {
  let dns: DnsServerHandle;
  let mail: MailServers;
  let site: WebServer;
  let service: RunningService;
  let mcp: Client;

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    mail = await startMailServers();
    site = await startWebServer({ routes: { '/page': page } });
    service = await target.start({
      SERVICE_DOMAIN,
      DNS_SERVERS: dns.address,
      SMTP_PORT: String(mail.port),
      UNSAFE_SMTP_ALLOW_HOSTS: mail.allowHosts,
      UNSAFE_WEBSITE_ALLOW_HOSTS: site.hostPort,
    });
    mcp = await connectClient(`${service.url}/mcp`, service.demoKey);
  }, 600_000);
  afterAll(async () => {
    await mcp?.close();
    await service?.stop();
    await site?.close();
    await mail?.close();
    await dns?.close();
  });

  const get = (
    path: string,
    headers: Record<string, string> = { Authorization: `Bearer ${service.demoKey}` },
  ) => fetch(`${service.url}${path}`, { headers });

  /**
   * The balance, as a lookup of a profile that does not exist answers it: 404, refunded. Each probe
   * is one request of the demo key's rate limit (60 a minute by default); the file stays well under.
   */
  async function balance(): Promise<number> {
    const response = await get(sampleUrl('profiles.details', unknownIdentifiers));
    await expectError(response, 404, 'resource_not_found');
    return credits(response);
  }

  /** Status, the headers every success carries, and the catalog price as creditCost; the parsed body. */
  async function expectSuccess(response: Response, operation: OperationDefinition) {
    // A refusal's body says why (its code and details): shown when the status is not 200.
    expect(response.status, response.status === 200 ? '' : await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const body = successEnvelopeSchema(operation.data, operation.paging, operation.price, operation.meta)
      .strict()
      .parse(await response.json());
    expect(body.meta.creditCost).toBe(operation.price);
    return body as { data: Record<string, unknown>; meta: Record<string, unknown> };
  }

  describe('v1 data lookups', () => {
    it.each(familyLookups)('$id answers its record, charged its price', async ({ id, expected }) => {
      const operation = operationOf(id);
      const before = await balance();
      const response = await get(sampleUrl(id));
      const body = await expectSuccess(response, operation);
      expect(body.data).toMatchObject(expected);
      expect(credits(response)).toBe(before - operation.price);
    });
  });

  it('answers an /api/v2 lookup with X-API-Key in the v2 envelope, charged its price', async () => {
    const operation = operationOf('profiles.details');
    const before = await balance();
    const response = await get(`/api/v2/profiles/${encodeURIComponent(fx.richProfile.username)}`, {
      'X-API-Key': service.demoKey,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = v2EnvelopeSchema(operation.data, operation.paging, operation.price, operation.meta)
      .strict()
      .parse(await response.json());
    expect(body.meta).toMatchObject({ operation: operation.id, creditCost: operation.price });
    expect(body.meta.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.data).toMatchObject({ username: fx.richProfile.username });
    expect(credits(response)).toBe(before - operation.price);
  });

  describe('the account', () => {
    it('tells the balance, finds a call in the ledger by its request id, and sums it in usage, free', async () => {
      const before = await balance();
      const lookup = await get(sampleUrl('profiles.details'));
      expect(lookup.status).toBe(200);
      const requestId = lookup.headers.get('x-request-id') as string;
      const account = await get('/v1/account');
      const details = (await expectSuccess(account, operationOf('account.details'))).data as {
        credits: { balance: number };
      };
      expect(details.credits.balance).toBe(before - operationOf('profiles.details').price);
      const ledger = await get(`/v1/account/ledger?${query({ requestId })}`);
      const { entries } = (await expectSuccess(ledger, operationOf('account.ledger'))).data as {
        entries: { requestId: string; outcome: string; credits: number }[];
      };
      expect(entries).toEqual([
        expect.objectContaining({
          requestId,
          outcome: 'charged',
          credits: operationOf('profiles.details').price,
        }),
      ]);
      const usage = await get('/v1/account/usage');
      const { rows } = (await expectSuccess(usage, operationOf('account.usage'))).data as {
        rows: { operation: string; creditsCharged: number }[];
      };
      expect(rows.find((row) => row.operation === 'profiles.details')?.creditsCharged).toBeGreaterThanOrEqual(
        operationOf('profiles.details').price,
      );
      expect(await balance()).toBe(details.credits.balance);
    });
  });

  describe('the console', () => {
    it('signs in with the key, shows the balance the API answers, and serves its hashed assets', async () => {
      const signInPage = await fetch(`${service.url}/console/sign-in`);
      expect(signInPage.status).toBe(200);
      expect(signInPage.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await signInPage.text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
      const formCookie = (signInPage.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
      const signedIn = await fetch(`${service.url}/console/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: new URL(service.url).origin,
          cookie: formCookie,
        },
        body: new URLSearchParams({ csrf, apiKey: service.demoKey }),
      });
      expect(signedIn.status).toBe(303);
      const session = signedIn.headers
        .getSetCookie()
        .map((cookie) => cookie.split(';')[0] as string)
        .find((cookie) => cookie.startsWith('console_session='));
      expect(session).toBeDefined();
      const overview = await fetch(`${service.url}/console`, { headers: { cookie: session as string } });
      expect(overview.status).toBe(200);
      const page = await overview.text();
      const account = (await (await get('/v1/account')).json()) as { data: { credits: { balance: number } } };
      expect(/id="balance"[^>]*>([^<]+)</.exec(page)?.[1]).toBe(String(account.data.credits.balance));
      for (const asset of page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
        const served = await fetch(`${service.url}${asset[1]}`);
        expect(served.status, asset[1]).toBe(200);
        expect(served.headers.get('cache-control')).toContain('immutable');
      }
      expect([...page.matchAll(/\/console\/assets\//g)].length).toBeGreaterThanOrEqual(2);
    });
  });

  it('serves /docs, every file the page links, and the OpenAPI document it reads', async () => {
    const docs = await fetch(`${service.url}/docs`);
    expect(docs.status).toBe(200);
    const linked = [...(await docs.text()).matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(linked).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']),
    );
    for (const path of linked) {
      const served = await fetch(`${service.url}${path}`);
      expect(served.status, path).toBe(200);
      expect((await served.arrayBuffer()).byteLength, path).toBeGreaterThan(100);
    }
    const document = await fetch(`${service.url}/openapi.json`);
    expect(document.status).toBe(200);
    const { openapi, paths } = (await document.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi).toMatch(/^3\./);
    expect(Object.keys(paths)).toContain('/v1/emails/disposable');
  });

  describe('emails', () => {
    it('checks a disposable domain free of charge', async () => {
      const before = await balance();
      const response = await get(`/v1/emails/disposable?${query({ email: 'someone@mailinator.com' })}`);
      const body = await expectSuccess(response, operationOf('emails.disposable'));
      expect(body.data).toEqual({ domain: 'mailinator.com', isDisposable: true });
      expect(response.headers.get('x-credits-remaining')).toBeNull();
      expect(await balance()).toBe(before);
    });

    it('verifies a deliverable mailbox on the loopback SMTP server, charged its price', async () => {
      const operation = operationOf('emails.verify');
      const connections = mail.connections.smtp;
      const before = await balance();
      const response = await get(`/v1/emails/verify?${query({ email: 'jane@accept.test' })}`);
      const body = await expectSuccess(response, operation);
      expect(body.data).toEqual({
        email: 'jane@accept.test',
        user: 'jane',
        domain: 'accept.test',
        isDisposable: false,
        mx: 'mx.accept.test',
        status: 'valid',
        reason: 'accepted',
        isCatchAll: false,
      });
      expect(mail.connections.smtp).toBeGreaterThan(connections);
      expect(credits(response)).toBe(before - operation.price);
    });
  });

  it('answers the visible text of a loopback page rendered in Chromium, charged its price', async () => {
    const operation = operationOf('websites.text');
    const before = await balance();
    const response = await get(`/v1/websites/text?${query({ url: `${site.origin}/page` })}`);
    const body = await expectSuccess(response, operation);
    // The last paragraph exists only once the page's script has run: a browser rendered it.
    expect(body.data).toMatchObject({
      url: `${site.origin}/page`,
      title: 'A page',
      text: 'Hello\n\nFirst paragraph.\n\nRendered by script.',
    });
    expect(site.requests.some((request) => request.url === '/page')).toBe(true);
    expect(credits(response)).toBe(before - operation.price);
  });

  describe('/mcp', () => {
    it('initializes as the lookup service with tools', () => {
      expect(mcp.getServerVersion()).toMatchObject({ name: 'lookup-service' });
      expect(mcp.getServerCapabilities()?.tools).toBeDefined();
    });

    it('lists every catalog tool', async () => {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(mcpToolNames);
    });

    it('calls a data tool: structuredContent is the REST envelope, charged its price', async () => {
      const operation = operationOf('companies.details');
      const before = await balance();
      const result = (await mcp.callTool({
        name: operation.mcpTool as string,
        arguments: { slug: fx.richCompany.slug },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const body = successEnvelopeSchema(operation.data, operation.paging, operation.price, operation.meta)
        .strict()
        .parse(result.structuredContent);
      expect(body.data).toMatchObject({ slug: fx.richCompany.slug, name: fx.richCompany.name });
      const lookup = result._meta?.[`${SERVICE_DOMAIN}/lookup`] as {
        status: number;
        headers: Record<string, string>;
      };
      expect(lookup.status).toBe(200);
      expect(lookup.headers['X-Request-Id']).toMatch(/^req_/);
      expect(Number(lookup.headers['X-Credits-Remaining'])).toBe(before - operation.price);
    });

    it('serves the 2026-07-28 era too: the same body, charged once, the cost in the text', async () => {
      const operation = operationOf('companies.details');
      const modern = await connectEraClient(`${service.url}/mcp`, service.demoKey, '2026-07-28');
      try {
        expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(mcpToolNames);
        const before = await balance();
        const result = await modern.callTool({
          name: operation.mcpTool as string,
          arguments: { slug: fx.richCompany.slug },
        });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ data: { slug: fx.richCompany.slug } });
        expect(await balance()).toBe(before - operation.price);
        expect(result.content.at(-1)).toEqual({
          type: 'text',
          text: `Cost: ${operation.price} credit${operation.price === 1 ? '' : 's'} charged; ${before - operation.price} credits remain.`,
        });
      } finally {
        await modern.close();
      }
    });
  });

  describe('the catch-all and refusals', () => {
    it('answers an unknown path with the JSON 404 resource_not_found', async () => {
      await expectError(await get('/v1/no-such-endpoint'), 404, 'resource_not_found');
    });

    it('answers a POST on a v1 path with 405 and Allow: GET', async () => {
      const response = await fetch(`${service.url}${sampleUrl('companies.details')}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${service.demoKey}` },
      });
      await expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe('GET');
    });

    it('answers a request without a key with 401 invalid_api_key', async () => {
      const response = await get(sampleUrl('companies.details'), {});
      await expectError(response, 401, 'invalid_api_key');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(response.headers.get('x-credits-remaining')).toBeNull();
    });

    it('answers a bad parameter with 400 and its detail, without charging', async () => {
      const before = await balance();
      const response = await get(`${sampleUrl('companies.details')}&bogus=1`);
      const body = await expectError(response, 400, 'invalid_request');
      expect(body.error.details).toEqual([
        expect.objectContaining({ field: 'bogus', code: 'unknown_parameter' }),
      ]);
      expect(response.headers.get('x-credits-remaining')).toBeNull();
      expect(await balance()).toBe(before);
    });
  });
});

function credits(response: Response): number {
  const header = response.headers.get('x-credits-remaining');
  expect(header, 'X-Credits-Remaining').toMatch(/^\d+$/);
  return Number(header);
}
