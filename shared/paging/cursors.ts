/**
 * Cursors of the activity streams (profile posts, comments, reactions). The state lives in the
 * store, bound to the operation, the account and the username; the token carries its own signed
 * issue time, so a cursor older than 15 minutes is answered `cursor_expired` even after its record
 * is gone (expired records are deleted lazily, or never by the embedded DynamoDB).
 *
 * Token: `<id>.<issued at, base 36 ms>.<HMAC-SHA256 of both, 128 bits, base64url>`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { CursorExpiredError, InvalidRequestError } from '../errors.js';

export const CURSOR_LIFETIME_MS = 15 * 60_000;
/** Clock skew tolerated between the instance that issued a cursor and the one reading it. */
const MAX_CLOCK_SKEW_MS = 60_000;

export interface CursorBinding {
  operation: string;
  accountId: string;
  /** What the stream is about: the normalized username. */
  subject: string;
}

export interface CursorRecord extends CursorBinding {
  id: string;
  position: string;
  issuedAt: number;
  /** When the record may be deleted (ms since the epoch). */
  expiresAt: number;
}

/** The port: where cursor records are kept. */
export interface CursorStore {
  /** Adds a record; fails if its id is taken. */
  insert(record: CursorRecord): Promise<void>;
  get(id: string): Promise<CursorRecord | undefined>;
}

/**
 * The port: service-wide values kept in the store. Its one user is the cursor secret below; it
 * sits here, beside that user, so the cursors and the store bundle (store/store.ts) import in one
 * direction only.
 */
export interface SettingStore {
  get(name: string): Promise<string | undefined>;
  /** The stored value of `name`; stores `candidate` first when there is none (atomically). */
  getOrCreate(name: string, candidate: string): Promise<string>;
}

/** The endpoint families: a cursor is valid only in the family that issued it. */
export type ApiFamily = 'v1' | 'v2';

/**
 * The operation a cursor is bound to, qualified by its endpoint family: v1 (REST and MCP, which
 * serve the same bodies) and /api/v2 cursors are not interchangeable.
 */
export function cursorOperation(operationId: string, api: ApiFamily): string {
  return api === 'v1' ? operationId : `${operationId}@${api}`;
}

function familyOf(operation: string): { operationId: string; api: ApiFamily } {
  const [operationId = operation, api] = operation.split('@');
  return { operationId, api: api === 'v2' ? 'v2' : 'v1' };
}

const invalidCursor = (message: string) => InvalidRequestError.single('cursor', 'invalid_value', message);

/** Issues signed cursor tokens and resumes them, keeping each cursor's record in a CursorStore. */
export class CursorIssuer {
  constructor(
    private readonly store: { cursors: CursorStore },
    private readonly clock: Clock,
    private readonly secret: () => Promise<string>,
  ) {}

  async issue(binding: CursorBinding, position: string): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    const issuedAt = this.clock.now();
    await this.store.cursors.insert({
      id,
      ...binding,
      position,
      issuedAt,
      expiresAt: issuedAt + CURSOR_LIFETIME_MS,
    });
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

    const record = await this.store.cursors.get(id);
    if (!record) throw invalidCursor('cursor is unknown; restart without a cursor.');
    const issuedBy = familyOf(record.operation);
    const usedIn = familyOf(binding.operation);
    if (issuedBy.api !== usedIn.api && issuedBy.operationId === usedIn.operationId) {
      const paths = (api: ApiFamily) => (api === 'v1' ? '/v1' : '/api/v2');
      throw invalidCursor(
        `cursor was issued by the ${paths(issuedBy.api)} endpoints and is not valid on ${paths(usedIn.api)}; ` +
          'restart without a cursor.',
      );
    }
    if (
      record.operation !== binding.operation ||
      record.accountId !== binding.accountId ||
      record.subject !== binding.subject
    ) {
      throw invalidCursor(
        'cursor belongs to another endpoint, account or username; restart without a cursor.',
      );
    }
    return record.position;
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
 * The signing secret: `CURSOR_SECRET` when configured, otherwise one random secret kept in the store
 * itself (created once by whichever process needs it first), so every process and restart agrees.
 */
export function cursorSecret(
  store: { settings: SettingStore },
  configured: string | undefined,
): () => Promise<string> {
  let secret: Promise<string> | undefined = configured ? Promise.resolve(configured) : undefined;
  return () => {
    secret ??= store.settings
      .getOrCreate('cursor-secret', randomBytes(32).toString('base64url'))
      .catch((error: unknown) => {
        secret = undefined;
        throw error;
      });
    return secret;
  };
}
