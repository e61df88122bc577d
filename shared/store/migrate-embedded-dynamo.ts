/**
 * The upgrade path of a DATA_DIR written when the embedded DynamoDB was the default: reads it (or
 * the table at DYNAMODB_ENDPOINT) whole and writes it into DATA_DIR/lookup.sqlite, which must hold
 * no accounts yet. The DynamoDB side is only read.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { exportSnapshot } from './dynamodb/export-snapshot.js';
import { embeddedDynamoPath } from './local-store.js';
import { type MigrationReport, summarize } from './migration.js';
import { openDynamo } from './open-dynamo.js';
import { openSqlite } from './open-store.js';
import { importSnapshot } from './sqlite/import-snapshot.js';

export async function migrateEmbeddedDynamo(
  config: Config,
  now: Date = new Date(),
): Promise<MigrationReport> {
  if (!config.DYNAMODB_ENDPOINT && !existsSync(embeddedDynamoPath(config))) {
    throw new Error(`Nothing to migrate: ${embeddedDynamoPath(config)} does not exist.`);
  }
  const source = await openDynamo(config, 'cli');
  try {
    const snapshot = await exportSnapshot(source.store.table);
    const target = await openSqlite(config, { migrating: true });
    try {
      importSnapshot(target.store, snapshot, now.toISOString());
      return summarize(snapshot, source.location, target.location);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
