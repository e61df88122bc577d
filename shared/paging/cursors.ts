/**
 * Cursors of the activity streams (profile posts, comments, reactions). The state lives in DynamoDB,
 * bound to the operation, the account and the username; the token carries its own signed issue
 * time, so a cursor older than 15 minutes is answered `cursor_expired` even after its item is gone
 * (TTL deletion is lazy, and the embedded DynamoDB never deletes).
 *
 * Token: `<id>.<issued at, base 36 ms>.<HMAC-SHA256 of both, 128 bits, base64url>`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import { CursorExpiredError, InvalidRequestError } from '../errors.js';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export const CURSOR_LIFETIME_MS = 15 * 60_000;
/** Clock skew tolerated between the instance that issued a cursor and the one reading it. */
const MAX_CLOCK_SKEW_MS = 60_000;

export interface CursorBinding {
  operation: string;
  accountId: string;
  /** What the stream is about: the normalized username. */
  subject: string;
}

const invalidCursor = (message: string) => InvalidRequestError.single('cursor', 'invalid_value', message);

export class CursorStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly secret: () => Promise<string>,
  ) {}

  async issue(binding: CursorBinding, position: string): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    const issuedAt = this.clock.now();
    await this.store.doc.send(
      new PutCommand({
        TableName: this.store.table,
        Item: {
          ...itemKeys.cursor(id),
          type: itemTypes.cursor,
          ...binding,
          position,
          issuedAt,
          expiresAt: Math.ceil((issuedAt + CURSOR_LIFETIME_MS) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    const payload = `${id}.${issuedAt.toString(36)}`;
    return `${payload}.${await this.sign(payload)}`;
  }

  /** The position a cursor stands for, after checking signature, age and binding. */
  async resume(token: string, binding: CursorBinding): Promise<string> {
    const [id, issued, signature, ...rest] = token.split('.');
    if (!id || !issued || !signature || rest.length > 0)
      throw invalidCursor('cursor is not a cursor this service issued.');
    const expected = Buffer.from(await this.sign(`${id}.${issued}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw invalidCursor(
        'cursor is not a cursor this service issued; copy meta.paging.nextCursor unchanged.',
      );
    }
    const issuedAt = Number.parseInt(issued, 36);
    const age = this.clock.now() - issuedAt;
    if (age > CURSOR_LIFETIME_MS || age < -MAX_CLOCK_SKEW_MS) throw new CursorExpiredError();

    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.cursor(id), ConsistentRead: true }),
    );
    if (!Item) throw invalidCursor('cursor is unknown; restart without a cursor.');
    if (
      Item.operation !== binding.operation ||
      Item.accountId !== binding.accountId ||
      Item.subject !== binding.subject
    ) {
      throw invalidCursor(
        'cursor belongs to another endpoint, account or username; restart without a cursor.',
      );
    }
    return Item.position as string;
  }

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(payload)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }
}

/**
 * The signing secret: `CURSOR_SECRET` when configured, otherwise one random secret kept in the table
 * itself (created once by whichever process needs it first), so every process and restart agrees.
 */
export function cursorSecret(store: Store, configured: string | undefined): () => Promise<string> {
  let secret: Promise<string> | undefined = configured ? Promise.resolve(configured) : undefined;
  return () => {
    secret ??= loadOrCreateSecret(store).catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };
}

async function loadOrCreateSecret(store: Store): Promise<string> {
  const key = itemKeys.setting('cursor-secret');
  const candidate = randomBytes(32).toString('base64url');
  try {
    await store.doc.send(
      new PutCommand({
        TableName: store.table,
        Item: { ...key, type: itemTypes.setting, value: candidate },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return candidate;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }),
    );
    if (!Item) throw new Error('The cursor secret could neither be created nor read.');
    return Item.value as string;
  }
}
