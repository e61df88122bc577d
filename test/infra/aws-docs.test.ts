/**
 * docs/aws.md against the project: every deployment setting is listed, and the commands of its
 * first-deployment path name only what exists (context keys, npm scripts, the stack's name and the
 * outputs it reads), so a reader who copies them deploys this project, not an older one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentVariableOf, settingDocs } from '../../infra/settings.js';
import { synthApp } from './synth-app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const docs = readFileSync(join(ROOT, 'docs', 'aws.md'), 'utf8');
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
);
/** The shell blocks and inline code of the document, where commands are written. */
const code = [...docs.matchAll(/```sh\n([\s\S]*?)```|`([^`\n]+)`/g)]
  .map((match) => match[1] ?? match[2])
  .join('\n');

describe('docs/aws.md', () => {
  it('lists every deployment setting with its context name and environment variable', () => {
    for (const setting of Object.keys(settingDocs))
      expect(docs, setting).toContain(`| \`${setting}\` | \`${environmentVariableOf(setting)}\` |`);
  });

  it('passes only context keys the CDK app reads (-c key=value)', () => {
    const keys = [...code.matchAll(/-c ([A-Za-z]+)=(?!value\b)/g)].map((match) => match[1] as string);
    expect(keys.length).toBeGreaterThan(3);
    for (const key of keys) expect(Object.keys(settingDocs), `-c ${key}`).toContain(key);
  });

  it('runs only npm scripts the project has', () => {
    const named = [...code.matchAll(/npm run ([a-z:-]+)/g)].map((match) => match[1] as string);
    expect(named).toEqual(expect.arrayContaining(['build', 'admin', 'start:synth']));
    for (const script of named) expect(scripts, `npm run ${script}`).toContain(script);
  });

  it('reads exactly the outputs the stack has, under the stack name cdk deploy gives it', () => {
    const dev = synthApp();
    const withDomain = synthApp({
      domainName: 'api.example.com',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
    });
    const outputs = new Set(
      [dev, withDomain].flatMap((app) => Object.keys(app.main.toJSON().Outputs as Record<string, unknown>)),
    );
    const table = docs.slice(docs.indexOf('| output | what it is |'));
    const documented = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `(\w+)` \|/gm)].map(
      (match) => match[1],
    );
    expect(documented.sort()).toEqual([...outputs].sort());
    // cdk-outputs.json is keyed by the stack name; the doc reads the dev stage's.
    expect(dev.stack.stackName).toBe('LookupService-dev');
    for (const [, stack, output] of code.matchAll(/\['(LookupService-\w+)'\]\.(\w+)/g)) {
      expect(stack).toBe(dev.stack.stackName);
      expect(outputs).toContain(output);
    }
  }, 120_000);
});
