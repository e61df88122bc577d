/**
 * Batch webhooks (issue 28): a batch with a `webhookUrl` is announced there when it completes, fails,
 * pauses or is cancelled, signed per the Standard Webhooks specification with the batch's own secret
 * (the `standardwebhooks` package: `webhook-id`, `webhook-timestamp` and `webhook-signature`).
 *
 * Each event is first stored as a delivery (batch-store.ts), then tried at once; a delivery a receiver
 * did not take (anything but a 2xx, no answer in time, a refused address) is retried after the pauses
 * of WEBHOOK_RETRY_SCHEDULE_SECONDS, by `deliverDue` (the worker pool calls it on each tick), and
 * given up as failed after the last. Every attempt is recorded. A worker leases a delivery for one
 * attempt before sending it, so two workers never send the same attempt, and a worker that crashed
 * mid-attempt only delays it until the lease ends. Delivery is at least once: the `webhook-id` is
 * the same on every attempt, for receivers to drop repeats.
 *
 * The URL goes through the egress guard (net/guarded-request.ts): `checkWebhookUrl` refuses a
 * non-public one when the batch is created, and each attempt checks it again (DNS may have changed
 * since), recording a refusal as that attempt's error. HTTPS on port 443 only; a host:port in
 * UNSAFE_BATCH_URL_ALLOW_HOSTS (tests) may be any address, over plain HTTP too.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { InvalidRequestError } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  checkDestination,
  EgressDeniedError,
  type EgressOptions,
  guardedRequest,
  isUnresolvedName,
  type ResolveName,
  UNRESOLVED_NAME,
} from '../net/guarded-request.js';
import type {
  BatchRecord,
  BatchStore,
  DeliveryAttempt,
  DeliveryOutcome,
  WebhookDelivery,
  WebhookEventType,
} from './batch-store.js';

/** Longer URLs are refused at creation: receivers' own limits are about this, and it is logged. */
const MAX_URL_LENGTH = 2_048;
/** A receiver's answer is read this far at most, then the connection is dropped; only its status counts. */
const MAX_RESPONSE_BYTES = 16 * 1024;
/** A lease outlasts the attempt's timeout by this much, for the record after it. */
const LEASE_MARGIN_MS = 30_000;
/** Due deliveries one `deliverDue` reads, and how many of them it sends at once. */
const DUE_PER_TICK = 100;
const CONCURRENT_SENDS = 8;
const USER_AGENT = 'LookupServiceWebhooks/1.0';

/** A new batch's signing secret: `whsec_` and base64 of 24 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The URL as it will be called, once the egress guard allows it: a syntax, scheme, credentials, port
 * or address the guard refuses, or a name that does not exist or resolves to a non-public address,
 * is refused with InvalidRequestError on field `webhookUrl`. A resolver failing for another reason
 * (a timeout) does not refuse the batch: every attempt checks the URL again anyway.
 */
export async function checkWebhookUrl(
  url: string,
  allowHosts: ReadonlySet<string>,
  resolve?: ResolveName,
): Promise<string> {
  const refuse = (code: 'invalid_format' | 'invalid_value' | 'too_long', why: string) =>
    InvalidRequestError.single('webhookUrl', code, `The webhook URL ${why}.`);
  if (url.length > MAX_URL_LENGTH) throw refuse('too_long', `is longer than ${MAX_URL_LENGTH} characters`);
  if (!URL.canParse(url)) throw refuse('invalid_format', 'is not a valid URL');
  const parsed = new URL(url);
  try {
    await checkDestination(parsed, egressOptions(allowHosts, resolve));
  } catch (error) {
    if (error instanceof EgressDeniedError) throw refuse('invalid_value', `is ${egressRefusal(error)}`);
    if (isUnresolvedName(error)) throw refuse('invalid_value', UNRESOLVED_NAME);
  }
  return parsed.href;
}

/** What the notifier takes from the configuration. */
export function notifierSettings(config: Config) {
  return {
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_SECONDS.map((seconds) => Math.round(seconds * 1000)),
    timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
    allowHosts: config.UNSAFE_BATCH_URL_ALLOW_HOSTS,
  };
}

export interface WebhookNotifierOptions extends ReturnType<typeof notifierSettings> {
  store: BatchStore;
  /** Default: the system's resolver. */
  resolve?: ResolveName;
  clock?: Clock;
  logger?: Logger;
}

/** What one attempt came to: the receiver's status, or why there was none. */
type Sent = Pick<DeliveryAttempt, 'status' | 'error'>;

export class WebhookNotifier {
  private readonly clock: Clock;

  constructor(private readonly options: WebhookNotifierOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Stores the event as a delivery of the batch and tries it once; later attempts are `deliverDue`'s.
   * Never throws: a store failure is logged (the event is then lost), a failed attempt is recorded.
   * Nothing is announced for a batch without a webhook URL.
   */
  async announce(batch: BatchRecord, type: WebhookEventType, data: unknown): Promise<void> {
    if (batch.webhookUrl === null || batch.webhookSecret === null) return;
    try {
      const now = this.clock.now();
      const timestamp = new Date(now).toISOString();
      const delivery: WebhookDelivery = {
        deliveryId: `msg_${randomBytes(18).toString('base64url')}`,
        batchId: batch.batchId,
        accountId: batch.accountId,
        type,
        payload: JSON.stringify({ type, timestamp, data }),
        state: 'pending',
        attempts: [],
        nextAttemptAt: now,
        createdAt: timestamp,
      };
      await this.options.store.addDelivery(delivery);
      await this.attempt(delivery);
    } catch (error) {
      this.options.logger?.error({ err: error, batchId: batch.batchId, type }, 'batch webhook not announced');
    }
  }

  /** Tries every delivery due now (up to DUE_PER_TICK); answers how many attempts it made. Never throws. */
  async deliverDue(): Promise<number> {
    try {
      const due = await this.options.store.dueDeliveries(this.clock.now(), DUE_PER_TICK);
      // A delivery being sent is leased (not due), so an overlapping tick never reads it.
      const queue = [...due];
      let attempts = 0;
      const sender = async () => {
        for (let next = queue.shift(); next; next = queue.shift())
          if (await this.attempt(next)) attempts += 1;
      };
      await Promise.all(Array.from({ length: CONCURRENT_SENDS }, sender));
      return attempts;
    } catch (error) {
      this.options.logger?.error({ err: error }, 'batch webhooks: due deliveries not sent');
      return 0;
    }
  }

  /** One attempt at `delivery`, if this worker gets its lease: false when another one has it. */
  private async attempt(delivery: WebhookDelivery): Promise<boolean> {
    const { store, timeoutMs, retryScheduleMs } = this.options;
    const { batchId, deliveryId } = delivery;
    const count = delivery.attempts.length;
    const now = this.clock.now();
    if (!(await store.leaseDelivery(batchId, deliveryId, count, now, now + timeoutMs + LEASE_MARGIN_MS)))
      return false;
    const started = performance.now();
    const batch = await store.get(batchId);
    const sent = batch ? await this.send(batch, delivery) : { status: null, error: 'the batch is gone' };
    const attempt: DeliveryAttempt = {
      at: new Date(now).toISOString(),
      ...sent,
      durationMs: Math.round(performance.now() - started),
    };
    const pause = retryScheduleMs[count];
    const outcome: DeliveryOutcome =
      sent.error === null
        ? { state: 'delivered', nextAttemptAt: null }
        : pause === undefined
          ? { state: 'failed', nextAttemptAt: null }
          : { state: 'pending', nextAttemptAt: this.clock.now() + pause };
    await store.recordAttempt(batchId, deliveryId, count, attempt, outcome);
    if (sent.error !== null)
      this.options.logger?.warn(
        { batchId, deliveryId, attempt: count + 1, error: sent.error, next: outcome.state },
        'batch webhook attempt failed',
      );
    return true;
  }

  /** Signs and sends the delivery to the batch's URL, checked again by the egress guard. */
  private async send(batch: BatchRecord, delivery: WebhookDelivery): Promise<Sent> {
    if (batch.webhookUrl === null || batch.webhookSecret === null)
      return { status: null, error: 'the batch has no webhook URL' };
    const { timeoutMs } = this.options;
    const signedAt = new Date(this.clock.now());
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await guardedRequest(
        new URL(batch.webhookUrl),
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            'webhook-id': delivery.deliveryId,
            'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
            'webhook-signature': new Webhook(batch.webhookSecret).sign(
              delivery.deliveryId,
              signedAt,
              delivery.payload,
            ),
          },
          body: delivery.payload,
          signal,
        },
        egressOptions(this.options.allowHosts, this.options.resolve),
      );
      const status = response.statusCode ?? 0;
      await discardBody(response);
      return { status, error: status >= 200 && status < 300 ? null : `the receiver answered ${status}` };
    } catch (error) {
      if (error instanceof EgressDeniedError) return { status: null, error: egressRefusal(error) };
      if (signal.aborted) return { status: null, error: `no answer within ${timeoutMs / 1000} s` };
      const code = (error as NodeJS.ErrnoException).code;
      return { status: null, error: `the request failed: ${code ?? (error as Error).message}` };
    }
  }
}

function egressOptions(allowHosts: ReadonlySet<string>, resolve?: ResolveName): EgressOptions {
  return { allowHosts, httpForAllowedHosts: true, ...(resolve ? { resolve } : {}) };
}

/** The guard's refusal in words, with the policy's reason (`loopback`, `private`, `not https`, …). */
function egressRefusal(error: EgressDeniedError): string {
  return `refused by the egress guard: ${error.reason}`;
}

/** Reads the answer's body up to MAX_RESPONSE_BYTES and drops it: only the status counts. */
function discardBody(response: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_RESPONSE_BYTES) response.destroy();
    });
    response.on('end', resolve);
    response.on('close', resolve);
    response.on('error', () => resolve());
  });
}
