/**
 * Stored records: one codec per kind of record the stores keep (the modules of this folder), shared
 * by the SQLite adapter, the DynamoDB adapter and the snapshot export. An adapter maps its row or
 * item to the record's fields by the port's names (columns and attributes, key attributes, units);
 * the codec holds the rules of the record (its fields, their types, which may be absent) once, and a
 * record that breaks them fails with StoredRecordError naming the item, so a corrupt record stops
 * the request that reads it instead of turning up later as `undefined`. The service answers such a
 * request 500 `internal_error` and logs the error (errors.ts: `storeFailure`).
 */
import * as z from 'zod';
import { once } from '../../lazy.js';

/** A stored record that does not decode: which kind, which item, and what is wrong with it. */
export class StoredRecordError extends Error {
  constructor(
    /** The kind of record, e.g. `account`. */
    readonly record: string,
    /** Where it is stored, e.g. `row acct_1 of accounts` or `item ACCOUNT#acct_1 / ACCOUNT of table t`. */
    readonly item: string,
    cause: z.ZodError,
  ) {
    super(`The stored ${record} (${item}) does not decode: ${describeIssues(cause)}.`, { cause });
    this.name = 'StoredRecordError';
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'the record'}: ${issue.message}`)
    .join('; ');
}

export interface RecordCodec<T> {
  readonly record: string;
  /**
   * The record from its fields by the port's names. A field holding null or undefined reads as
   * absent (SQLite keeps an absent value as NULL, DynamoDB as a missing attribute or NULL); fields
   * the record does not know (keys, item type, notes) are dropped. `item` says where it is stored, for the error.
   */
  decode(fields: Record<string, unknown>, item: string): T;
}

/**
 * The codec of a kind of record. Its schema is made at its first decode, not at import: a function
 * imports every store module, reads a few kinds, and a cold start made all of them otherwise.
 */
export function recordCodec<T>(record: string, schemaOf: () => z.ZodType<T>): RecordCodec<T> {
  const schema = once(schemaOf);
  return {
    record,
    decode(fields, item) {
      const parsed = schema().safeParse(withoutAbsent(fields));
      if (!parsed.success) throw new StoredRecordError(record, item, parsed.error);
      return parsed.data;
    },
  };
}

/** The fields of a stored value that should be an object (a map entry, a note); none otherwise. */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
}

/** Null and undefined values read as absent, so optional fields come out absent, as always written. */
function withoutAbsent(fields: Record<string, unknown>): Record<string, unknown> {
  // Every record a request reads passes here, most with every field present: those are not copied.
  const values = Object.values(fields);
  if (!values.includes(null) && !values.includes(undefined)) return fields;
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  );
}

/** A field that may be null in the port's record: absent or null in storage reads as null. */
export const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().default(null);

/** Credits, counts of requests, HTTP statuses: whole numbers. */
export const count = () => z.number().int();

/** A time in milliseconds since the epoch (DynamoDB's TTL seconds are converted by the adapter). */
export const epochMs = () => z.number();

/**
 * A field a store keeps as JSON text (a SQLite column, a DynamoDB string attribute), parsed; anything
 * else, unparsable text included, is passed on as it is for the record's codec to refuse.
 */
export function parsedJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
