import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentVariableOf, settingDocs } from '../../infra/settings.js';

const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'aws.md'), 'utf8');

describe('docs/aws.md', () => {
  it('lists every deployment setting with its context name and environment variable', () => {
    for (const setting of Object.keys(settingDocs))
      expect(docs, setting).toContain(`| \`${setting}\` | \`${environmentVariableOf(setting)}\` |`);
  });
});
