/**
 * Makes chosen writes of a store fail, to stand for a crash (or a lost connection) between any two
 * writes of a request. A write is one atomic step of the adapter: a DynamoDB write command, or an
 * SQLite write transaction. Writes are numbered in the order they are sent, from `arm()` on; the
 * ones not in `landing` throw before reaching the store.
 */
import type { DynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import type { SqliteStore } from '../../shared/store/sqlite/sqlite-store.js';
import type { Store } from '../../shared/store/store.js';

const DYNAMO_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

export class CrashedWrite extends Error {
  constructor(index: number) {
    super(`write ${index} did not land (simulated crash)`);
  }
}

export interface WriteFaults {
  /** From now on, number writes from 0 and let only `landing` through (all, when undefined). */
  arm(landing?: ReadonlySet<number>): void;
  /** Writes sent since `arm()`, landed or not. */
  readonly sent: number;
}

export function injectWriteFaults(store: Store): WriteFaults {
  let landing: ReadonlySet<number> | undefined;
  let sent = 0;
  /** Throws when write number `sent` must not land. */
  const next = () => {
    const index = sent++;
    if (landing && !landing.has(index)) throw new CrashedWrite(index);
  };
  if (store.kind === 'dynamodb') {
    (store as DynamoStore).table.client.use((call, send) => {
      if (DYNAMO_WRITES.has(call.operation)) next();
      return send();
    });
  } else {
    const { database } = store as SqliteStore;
    const transaction = database.transaction.bind(database);
    database.transaction = <T>(work: () => T): T => {
      next();
      return transaction(work);
    };
  }
  return {
    arm(allowed) {
      landing = allowed;
      sent = 0;
    },
    get sent() {
      return sent;
    },
  };
}
