/**
 * SQS's standard queue, in memory, as start:synth's local SQS endpoint (local-sqs.ts) and the event
 * source mappings (queue-pollers.ts) use it: messages with an optional delay, received under a
 * visibility timeout with a fresh receipt handle each time (only the latest one deletes or changes
 * visibility, as SQS documents), receive counts, and the redrive policy: a message received
 * maxReceiveCount times moves to the dead-letter queue at the next receive instead of being
 * delivered again. Long polling waits for a send, or for a message to become visible, up to its wait
 * time. Nothing survives a restart (start:synth's queues are as fresh as its functions).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { DeployedQueue } from './deployment-model.js';

/** A message attribute as the SQS JSON protocol carries it. */
export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

interface StoredMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  messageAttributes: Record<string, MessageAttribute>;
  senderId: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** The latest receipt handle: an older one neither deletes nor changes visibility. */
  receiptHandle?: string;
}

/** One message as a receive hands it out. */
export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  md5OfBody: string;
  messageAttributes: Record<string, MessageAttribute>;
  senderId: string;
  sentAt: number;
  receiveCount: number;
  firstReceivedAt: number;
}

export interface SendOptions {
  delaySeconds?: number;
  messageAttributes?: Record<string, MessageAttribute>;
  /** Who sent it (SQS's SenderId: the caller's access key id or role). */
  senderId: string;
}

/** A receipt handle this queue never issued (SQS's ReceiptHandleIsInvalid). */
export class ReceiptHandleInvalidError extends Error {}
/** ChangeMessageVisibility on a message no longer in flight (SQS's MessageNotInflight). */
export class MessageNotInflightError extends Error {}

export const md5Hex = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The receipt handle names its message, so a stale handle is told apart from a forged one. */
const handleFor = (messageId: string) => `${messageId}.${randomBytes(24).toString('base64url')}`;
const messageIdOf = (receiptHandle: string) => /^([0-9a-f-]{36})\.[\w-]{32}$/.exec(receiptHandle)?.[1];

export class SqsQueue {
  /** In send order; a message leaves it when deleted or moved to the dead-letter queue. */
  private readonly messages = new Map<string, StoredMessage>();
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly definition: DeployedQueue,
    /** The queue a redrive policy's ARN names (undefined: none in the deployment). */
    private readonly queueByArn: (arn: string) => SqsQueue | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  send(body: string, options: SendOptions): { messageId: string; md5OfBody: string } {
    const messageId = randomUUID();
    const sentAt = this.now();
    const delaySeconds = options.delaySeconds ?? this.definition.delaySeconds;
    this.store({
      messageId,
      body,
      md5OfBody: md5Hex(body),
      messageAttributes: options.messageAttributes ?? {},
      senderId: options.senderId,
      sentAt,
      visibleAt: sentAt + delaySeconds * 1000,
      receiveCount: 0,
    });
    return { messageId, md5OfBody: md5Hex(body) };
  }

  private store(message: StoredMessage): void {
    this.messages.set(message.messageId, message);
    this.wake();
  }

  private wake(): void {
    for (const wake of this.wakers) wake();
    this.wakers.clear();
  }

  /**
   * Up to `max` visible messages, each now invisible for `visibilityTimeoutSeconds` (the queue's
   * own by default). A message already received maxReceiveCount times moves to the dead-letter
   * queue instead.
   */
  receive(
    max: number,
    visibilityTimeoutSeconds = this.definition.visibilityTimeoutSeconds,
  ): ReceivedMessage[] {
    const now = this.now();
    const received: ReceivedMessage[] = [];
    for (const message of this.messages.values()) {
      if (received.length >= max) break;
      if (message.visibleAt > now) continue;
      if (this.redrive(message)) continue;
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibilityTimeoutSeconds * 1000;
      message.receiptHandle = handleFor(message.messageId);
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        md5OfBody: message.md5OfBody,
        messageAttributes: message.messageAttributes,
        senderId: message.senderId,
        sentAt: message.sentAt,
        receiveCount: message.receiveCount,
        firstReceivedAt: message.firstReceivedAt,
      });
    }
    return received;
  }

  /** Moves a message past its maxReceiveCount to the dead-letter queue; true if it moved. */
  private redrive(message: StoredMessage): boolean {
    const policy = this.definition.redrive;
    if (!policy || message.receiveCount < policy.maxReceiveCount) return false;
    const deadLetter = this.queueByArn(policy.deadLetterTargetArn);
    if (!deadLetter) return false;
    this.messages.delete(message.messageId);
    // SQS keeps the message's id, body, attributes and original send time; its receive count restarts.
    const { receiptHandle: _dropped, firstReceivedAt: _first, ...kept } = message;
    deadLetter.store({ ...kept, receiveCount: 0, visibleAt: this.now() });
    return true;
  }

  /**
   * Long polling: waits until a message can be received, `waitMs` passes or `signal` aborts (then
   * answers what it has, possibly nothing).
   */
  async receiveWaiting(
    max: number,
    waitMs: number,
    signal: AbortSignal,
    visibilityTimeoutSeconds?: number,
  ): Promise<ReceivedMessage[]> {
    const deadline = this.now() + waitMs;
    for (;;) {
      const received = this.receive(max, visibilityTimeoutSeconds);
      const now = this.now();
      if (received.length > 0 || now >= deadline || signal.aborted) return received;
      // Until a send or a visibility change, the next message to become visible, or the deadline.
      const nextVisible = Math.min(...[...this.messages.values()].map((message) => message.visibleAt));
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, Math.min(deadline, nextVisible) - now));
        this.wakers.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** The message a current receipt handle designates; undefined for a stale one. */
  private inFlight(receiptHandle: string): StoredMessage | undefined {
    const messageId = messageIdOf(receiptHandle);
    if (messageId === undefined)
      throw new ReceiptHandleInvalidError(`The receipt handle "${receiptHandle}" is not valid.`);
    const message = this.messages.get(messageId);
    return message?.receiptHandle === receiptHandle ? message : undefined;
  }

  /** Deletes the message; a stale handle (the message received again since) deletes nothing, as on SQS. */
  delete(receiptHandle: string): void {
    const message = this.inFlight(receiptHandle);
    if (message) this.messages.delete(message.messageId);
  }

  changeVisibility(receiptHandle: string, visibilityTimeoutSeconds: number): void {
    const message = this.inFlight(receiptHandle);
    if (!message || message.visibleAt <= this.now())
      throw new MessageNotInflightError('The message referred to is not in flight.');
    message.visibleAt = this.now() + visibilityTimeoutSeconds * 1000;
    this.wake();
  }

  /** SQS's approximate counts (exact here). */
  counts(): { visible: number; notVisible: number; delayed: number } {
    const now = this.now();
    const counts = { visible: 0, notVisible: 0, delayed: 0 };
    for (const message of this.messages.values()) {
      if (message.visibleAt <= now) counts.visible += 1;
      else if (message.receiveCount === 0) counts.delayed += 1;
      else counts.notVisible += 1;
    }
    return counts;
  }
}

/** Every queue of a deployment, by name and by ARN (a redrive policy names its target by ARN). */
export class SqsQueues {
  private readonly byName = new Map<string, SqsQueue>();
  private readonly byArn = new Map<string, SqsQueue>();

  constructor(definitions: readonly DeployedQueue[], now?: () => number) {
    for (const definition of definitions) {
      const queue = new SqsQueue(definition, (arn) => this.byArn.get(arn), now);
      this.byName.set(definition.name, queue);
      this.byArn.set(definition.arn, queue);
    }
  }

  named(name: string): SqsQueue | undefined {
    return this.byName.get(name);
  }

  withArn(arn: string): SqsQueue | undefined {
    return this.byArn.get(arn);
  }
}
