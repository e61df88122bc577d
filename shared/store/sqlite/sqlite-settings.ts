/**
 * Service-wide settings in SQLite: one row each, created once (`INSERT … ON CONFLICT DO NOTHING`).
 */
import type { SettingStore } from '../../paging/cursors.js';
import { settingRecord } from '../records/setting.js';
import type { Database } from './database.js';
import { rowName } from './rows.js';

export class SqliteSettingStore implements SettingStore {
  constructor(private readonly database: Database) {}

  async get(name: string): Promise<string | undefined> {
    return this.read(name);
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    return this.database.write(() => {
      this.database
        .statement('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run(name, candidate);
      const value = this.read(name);
      if (value === undefined) throw new Error(`The setting ${name} could neither be created nor read.`);
      return value;
    });
  }

  private read(name: string): string | undefined {
    const row = this.database.statement('SELECT name, value FROM settings WHERE name = ?').get(name);
    return row && settingRecord.decode(row, rowName('settings', name)).value;
  }
}
