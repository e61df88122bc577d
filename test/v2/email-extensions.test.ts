/**
 * The email extensions of /api/v2 that dial mail servers (verify, find), against real DNS and SMTP
 * servers on loopback: a success in the v2 envelope whose data deep-equals v1's, billed on the same
 * account. Find remembers a domain's address pattern, so the v1 call asks about a twin domain (memory.test: the same
 * mail server and mailbox) rather than repeating the v2 call, and the answers are compared with the domain swapped.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { v2Routes } from '../../schemas/catalog.js';
import { v2EnvelopeSchema } from '../../schemas/envelope.js';
import type { Zone } from '../support/dns-server.js';
import { type EmailHarness, startEmailHarness } from '../support/email-harness.js';
import { ADDRESSES } from '../support/mail-servers.js';

const zone: Zone = {
  'mx.accept.test': { a: [ADDRESSES.smtp] },
  'accept.test': { mx: [[10, 'mx.accept.test']] },
  'memory.test': { mx: [[10, 'mx.accept.test']] },
};

let email: EmailHarness;
beforeAll(async () => {
  email = await startEmailHarness(zone);
});
afterAll(async () => email?.close());

const inputs: Record<string, Record<string, string>> = {
  'emails.verify': { email: 'mjansen@accept.test' },
  'emails.find': { firstName: 'Marc', lastName: 'Jansen', domain: 'accept.test' },
};

it.each(
  v2Routes
    .filter((route) => Object.hasOwn(inputs, route.operation.id))
    .map((route) => [route.path, route] as const),
)('%s answers in the v2 envelope with the v1 data', async (path, route) => {
  const operation = route.operation;
  const query = new URLSearchParams(inputs[route.operation.id]);
  const { harness } = email;
  const { apiKey } = await harness.provision({ credits: 100 });
  const response = await harness.app.request(`${path}?${query}`, { headers: { 'X-API-Key': apiKey } });
  expect(response.status).toBe(200);
  const body = v2EnvelopeSchema(operation.data, operation.paging, operation.price)
    .strict()
    .parse(await response.json());
  expect(response.headers.get('x-credits-remaining')).toBe(String(100 - operation.price));
  const twinQuery = query.toString().replace('accept.test', 'memory.test');
  const v1 = await harness.get(`${operation.variants[0]?.path}?${twinQuery}`, apiKey);
  const v1Data = JSON.stringify(((await v1.json()) as { data: unknown }).data).replaceAll(
    'memory.test',
    'accept.test',
  );
  expect(body.data).toEqual(JSON.parse(v1Data));
});
