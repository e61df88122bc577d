/**
 * Batch webhooks (shared/batches/webhooks.ts) against a real HTTP receiver on loopback, the real
 * SQLite store and a real DNS server on loopback: an event is stored as a delivery and sent at once,
 * signed per Standard Webhooks (the receiver verifies it with the `standardwebhooks` library); a
 * receiver that fails is retried on the configured schedule with every attempt recorded, and given up
 * after the last pause; a URL at a non-public address, written as one or reached through a name, is
 * refused by `checkWebhookUrl` at creation and never connected to at delivery.
 */
import { randomUUID } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BatchRecord, WebhookDelivery } from '../../shared/batches/batch-store.js';
import {
  checkWebhookUrl,
  newWebhookSecret,
  notifierSettings,
  WebhookNotifier,
} from '../../shared/batches/webhooks.js';
import { loadConfig } from '../../shared/config.js';
import { ApiError } from '../../shared/errors.js';
import type { ResolveName } from '../../shared/net/guarded-request.js';
import type { Store } from '../../shared/store/store.js';
import { type DnsServerHandle, startDnsServer, type Zone } from '../support/dns-server.js';
import { openTestStore } from '../support/harness.js';

/** One request the receiver got. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver answering each request with the next scripted status (204 once they run out). */
class Receiver {
  readonly received: Received[] = [];
  /** TCP connections accepted: a refused URL must not even connect. */
  connections = 0;
  private script: number[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.statusCode = this.script.shift() ?? 204;
      response.end(response.statusCode === 204 ? undefined : 'receiver says no');
    });
  });

  constructor() {
    this.server.on('connection', () => {
      this.connections += 1;
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  reset(script: number[] = []): void {
    this.received.length = 0;
    this.connections = 0;
    this.script = script;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const PUBLIC_ADDRESS = '93.184.215.14';
const zone: Zone = {
  'hooks-loopback.test': { a: ['127.0.0.1'] },
  'hooks-metadata.test': { a: ['169.254.169.254'] },
  'hooks-mixed.test': { a: [PUBLIC_ADDRESS, '10.0.0.7'] },
  'hooks.example.test': { a: [PUBLIC_ADDRESS] },
};

/** A resolver asking the test's DNS server (A and AAAA), as the system's would ask its own. */
function resolverOf(dns: DnsServerHandle): ResolveName {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([dns.address]);
  const none = new Set(['ENODATA', 'ENOTFOUND']);
  return async (host) => {
    const answers = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    if (answers.every((answer) => answer.status === 'rejected'))
      throw (answers[0] as PromiseRejectedResult).reason;
    return answers.flatMap((answer) => {
      if (answer.status === 'fulfilled') return answer.value;
      if (none.has((answer.reason as NodeJS.ErrnoException).code ?? '')) return [];
      throw answer.reason;
    });
  };
}

let store: Store;
let closeStore: () => Promise<void>;
let dns: DnsServerHandle;
let resolve: ResolveName;
const receiver = new Receiver();

beforeAll(async () => {
  ({ store, close: closeStore } = await openTestStore({ store: 'sqlite' }));
  dns = await startDnsServer(zone);
  resolve = resolverOf(dns);
  await receiver.start();
});
afterAll(async () => {
  await receiver.close();
  await dns?.close();
  await closeStore?.();
});
beforeEach(() => receiver.reset());

/** The notifier as `npm start` builds it from these settings, with the test's resolver. */
function notifier(env: Record<string, string> = {}): WebhookNotifier {
  return new WebhookNotifier({
    store: store.batches,
    ...notifierSettings(loadConfig(env)),
    resolve,
  });
}

const allowReceiver = () => ({ UNSAFE_BATCH_URL_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });

/** A batch (stored: deliveries belong to it) announcing to `webhookUrl`. */
async function batchWithWebhook(webhookUrl: string): Promise<BatchRecord> {
  const at = new Date().toISOString();
  const batch: BatchRecord = {
    batchId: `bat_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    accountId: 'acct_hooks',
    holderId: 'key_hooks',
    operation: 'profiles.lookup',
    state: 'completed',
    pauseReason: null,
    itemCount: 1,
    nextIndex: 1,
    counts: { succeeded: 1, failed: 0, invalid: 0 },
    creditsCharged: 2,
    creditsRefunded: 0,
    webhookUrl,
    webhookSecret: newWebhookSecret(),
    createdAt: at,
    updatedAt: at,
    finishedAt: at,
  };
  const outcome = await store.batches.create(batch, [{ input: { email: 'zoe@example.com' } }]);
  if (outcome.kind !== 'created') throw new Error(`expected a created batch, got ${outcome.kind}`);
  return outcome.batch;
}

/** The batch state as GET /v1/batches/{id} shows it (the lead's shape; any JSON does here). */
const stateOf = (batch: BatchRecord) => ({
  id: batch.batchId,
  state: batch.state,
  counts: batch.counts,
  name: 'Zoë Ådahl',
});

/** Runs `deliverDue` until the batch's only delivery is no longer pending (or 10 s pass). */
async function deliverUntilSettled(hooks: WebhookNotifier, batch: BatchRecord): Promise<WebhookDelivery> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await hooks.deliverDue();
    const [delivery] = await store.batches.deliveries(batch.batchId);
    if (!delivery) throw new Error('the delivery was not stored');
    if (delivery.state !== 'pending' || Date.now() > deadline) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a delivered webhook', () => {
  it('is signed per Standard Webhooks: the receiver verifies it with the library', async () => {
    const hooks = notifier(allowReceiver());
    const batch = await batchWithWebhook(`http://127.0.0.1:${receiver.port}/hooks?tenant=7`);
    const before = Date.now();
    await hooks.announce(batch, 'batch.completed', stateOf(batch));

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received as [Received];
    expect(request.path).toBe('/hooks?tenant=7');
    expect(request.headers['content-type']).toBe('application/json');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const payload = new Webhook(batch.webhookSecret as string).verify(request.body, headers) as {
      timestamp: string;
    };
    expect(payload).toStrictEqual({
      type: 'batch.completed',
      timestamp: expect.any(String),
      data: stateOf(batch),
    });
    expect(Date.parse(payload.timestamp)).toBeGreaterThanOrEqual(before - 1_000);
    // Another batch's secret does not verify it.
    expect(() => new Webhook(newWebhookSecret()).verify(request.body, headers)).toThrow(
      WebhookVerificationError,
    );

    const [delivery] = await store.batches.deliveries(batch.batchId);
    expect(delivery).toMatchObject({
      deliveryId: headers['webhook-id'],
      type: 'batch.completed',
      payload: request.body,
      state: 'delivered',
      nextAttemptAt: null,
      attempts: [{ status: 204, error: null }],
    });
    expect(headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{20,}$/);
  });

  it('is not sent for a batch without a webhook URL, and nothing is stored', async () => {
    const batch = await batchWithWebhook('https://hooks.example.test/');
    const bare = { ...batch, webhookUrl: null, webhookSecret: null };
    await notifier(allowReceiver()).announce(bare, 'batch.paused', stateOf(bare));
    expect(await store.batches.deliveries(batch.batchId)).toStrictEqual([]);
  });
});

describe('a failing receiver', () => {
  it('is retried on the schedule, with the same webhook-id, each attempt recorded', async () => {
    const hooks = notifier({ ...allowReceiver(), WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.4,60' });
    receiver.reset([500, 500]);
    const batch = await batchWithWebhook(`http://127.0.0.1:${receiver.port}/hooks`);
    await hooks.announce(batch, 'batch.failed', stateOf(batch));
    expect(receiver.received).toHaveLength(1);
    // Not due before its pause is over: nothing is sent again at once.
    expect(await hooks.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);

    const delivery = await deliverUntilSettled(hooks, batch);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.map(({ status, error }) => ({ status, error }))).toStrictEqual([
      { status: 500, error: 'the receiver answered 500' },
      { status: 500, error: 'the receiver answered 500' },
      { status: 204, error: null },
    ]);
    for (const attempt of delivery.attempts) expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    const started = delivery.attempts.map((attempt) => Date.parse(attempt.at));
    // Each retry waited at least its pause (upper bounds are the machine's business, not the rule's).
    expect((started[1] as number) - (started[0] as number)).toBeGreaterThanOrEqual(200);
    expect((started[2] as number) - (started[1] as number)).toBeGreaterThanOrEqual(400);

    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    expect([...ids]).toStrictEqual([delivery.deliveryId]);
    for (const request of receiver.received) {
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
          name,
          String(request.headers[name]),
        ]),
      );
      expect(new Webhook(batch.webhookSecret as string).verify(request.body, headers)).toMatchObject({
        type: 'batch.failed',
      });
    }
  });

  it('is given up after the last pause: the delivery failed, every attempt recorded', async () => {
    const hooks = notifier({ ...allowReceiver(), WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.05' });
    receiver.reset([503, 500, 500]);
    const batch = await batchWithWebhook(`http://127.0.0.1:${receiver.port}/hooks`);
    await hooks.announce(batch, 'batch.cancelled', stateOf(batch));
    const delivery = await deliverUntilSettled(hooks, batch);
    expect(delivery).toMatchObject({ state: 'failed', nextAttemptAt: null });
    expect(delivery.attempts.map((attempt) => attempt.status)).toStrictEqual([503, 500]);
    expect(receiver.received).toHaveLength(2);
    expect(await hooks.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(2);
  });

  it('records a receiver that does not answer in time as a timed-out attempt', async () => {
    const silent = createServer(() => {
      // Never answers: the notifier's timeout ends the attempt.
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      const hooks = notifier({
        UNSAFE_BATCH_URL_ALLOW_HOSTS: `127.0.0.1:${port}`,
        WEBHOOK_TIMEOUT_SECONDS: '1',
      });
      const batch = await batchWithWebhook(`http://127.0.0.1:${port}/slow`);
      await hooks.announce(batch, 'batch.completed', stateOf(batch));
      const [delivery] = await store.batches.deliveries(batch.batchId);
      expect(delivery?.state).toBe('pending');
      expect(delivery?.attempts).toMatchObject([{ status: null, error: 'no answer within 1 s' }]);
      // Ended by the 1 s timeout, not by the receiver (which never answers) or the test's own timeout.
      expect(delivery?.attempts[0]?.durationMs).toBeGreaterThanOrEqual(900);
      expect(delivery?.attempts[0]?.durationMs).toBeLessThan(4_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('a receiver answering at length', () => {
  it('is read no further than a bound: an endless answer does not hold the attempt', async () => {
    const endless = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    endless.listen(0, '127.0.0.1');
    await once(endless, 'listening');
    const { port } = endless.address() as AddressInfo;
    try {
      const hooks = notifier({
        UNSAFE_BATCH_URL_ALLOW_HOSTS: `127.0.0.1:${port}`,
        WEBHOOK_TIMEOUT_SECONDS: '10',
      });
      const batch = await batchWithWebhook(`http://127.0.0.1:${port}/chatty`);
      await hooks.announce(batch, 'batch.completed', stateOf(batch));
      const [delivery] = await store.batches.deliveries(batch.batchId);
      expect(delivery?.state).toBe('delivered');
      // Milliseconds of work; reading the whole answer would last until the 10 s timeout.
      expect(delivery?.attempts[0]?.durationMs).toBeLessThan(2_000);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });
});

describe('a URL at a non-public address', () => {
  const refusedAtCreation: [url: string, because: RegExp][] = [
    ['not a url', /not a valid URL/],
    ['ftp://hooks.example.test/', /https/],
    ['http://hooks.example.test/', /https/],
    ['https://user:secret@hooks.example.test/', /credentials/],
    ['https://127.0.0.1/', /loopback/],
    ['https://[::1]/', /loopback/],
    ['https://10.1.2.3/', /private/],
    ['https://169.254.169.254/latest/meta-data/', /link_local/],
    ['https://[::ffff:7f00:1]/', /loopback/],
    ['https://localhost/', /loopback_name/],
    ['https://hooks-loopback.test/', /resolves to 127\.0\.0\.1 \(loopback\)/],
    ['https://hooks-metadata.test/', /resolves to 169\.254\.169\.254 \(link_local\)/],
    ['https://hooks-mixed.test/', /resolves to 10\.0\.0\.7 \(private\)/],
    ['https://nowhere.test/', /does not resolve/],
  ];

  it.each(refusedAtCreation)('refuses %s at creation, on field webhookUrl', async (url, because) => {
    const refusal = await checkWebhookUrl(url, new Set(), resolve).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ApiError);
    const { code, status, details } = refusal as ApiError;
    expect({ code, status }).toStrictEqual({ code: 'invalid_request', status: 400 });
    expect(details).toHaveLength(1);
    expect(details[0]?.field).toBe('webhookUrl');
    expect(details[0]?.message).toMatch(because);
  });

  it('refuses the loopback receiver without the allow list, and takes it with it', async () => {
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    await expect(checkWebhookUrl(url, new Set(), resolve)).rejects.toBeInstanceOf(ApiError);
    const { UNSAFE_BATCH_URL_ALLOW_HOSTS } = allowReceiver();
    const allowed = loadConfig({ UNSAFE_BATCH_URL_ALLOW_HOSTS }).UNSAFE_BATCH_URL_ALLOW_HOSTS;
    expect(await checkWebhookUrl(url, allowed, resolve)).toBe(url);
    expect(await checkWebhookUrl('https://hooks.example.test/batches', new Set(), resolve)).toBe(
      'https://hooks.example.test/batches',
    );
  });

  it('is not connected to at delivery: the refusal is the attempt, and it is retried later', async () => {
    const hooks = notifier();
    const urls = [
      `http://127.0.0.1:${receiver.port}/hooks`,
      'https://127.0.0.1/',
      'https://10.0.0.7/',
      'https://169.254.169.254/latest/meta-data/',
      'https://localhost/',
      'https://hooks-loopback.test/',
    ];
    for (const url of urls) {
      const batch = await batchWithWebhook(url);
      await hooks.announce(batch, 'batch.completed', stateOf(batch));
      const [delivery] = await store.batches.deliveries(batch.batchId);
      expect(delivery?.state, url).toBe('pending');
      expect(delivery?.attempts, url).toMatchObject([
        { status: null, error: expect.stringMatching(/^refused by the egress guard: /) },
      ]);
    }
    expect(receiver.connections).toBe(0);
    expect(receiver.received).toStrictEqual([]);
  });

  it('is checked again at delivery: a name that turned private since creation is refused', async () => {
    dns.setZone({ ...zone, 'hooks-rebind.test': { a: [PUBLIC_ADDRESS] } });
    const url = 'https://hooks-rebind.test/';
    expect(await checkWebhookUrl(url, new Set(), resolve)).toBe(url);
    dns.setZone({ ...zone, 'hooks-rebind.test': { a: ['127.0.0.1'] } });
    const batch = await batchWithWebhook(url);
    await notifier().announce(batch, 'batch.paused', stateOf(batch));
    const [delivery] = await store.batches.deliveries(batch.batchId);
    expect(delivery?.attempts).toMatchObject([
      { status: null, error: 'refused by the egress guard: it resolves to 127.0.0.1 (loopback)' },
    ]);
  });
});
