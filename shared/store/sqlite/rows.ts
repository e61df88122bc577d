/**
 * From SQLite rows to the fields of stored records (records/): where a row is, for the error of a
 * record that does not decode, and the two column encodings SQLite needs (booleans as 0/1, lists
 * and objects as JSON text). Values that break an encoding are passed on unchanged, so the
 * record's codec refuses them with the row named.
 */

/** A row by its table and key, e.g. `row acct_1 of accounts`. */
export function rowName(table: string, ...key: unknown[]): string {
  return `row ${key.map(String).join(' / ')} of ${table}`;
}

/** The stored value of a boolean column: 0 and 1 read as false and true. */
export function booleanColumn(value: unknown): unknown {
  return value === 0 ? false : value === 1 ? true : value;
}

/** The stored value of a JSON text column, parsed (the DynamoDB adapter reads its JSON text alike). */
export { parsedJsonText as jsonColumn } from '../records/stored-record.js';
