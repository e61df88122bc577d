/**
 * A service-wide setting kept in the store, such as the generated cursor secret.
 */
import * as z from 'zod';
import { recordCodec } from './stored-record.js';

export interface SettingRecord {
  name: string;
  value: string;
}

export const settingRecord = recordCodec<SettingRecord>('setting', () =>
  z.object({ name: z.string(), value: z.string() }),
);
