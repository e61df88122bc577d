import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTED_RESOURCE_METADATA_PATHS, SERVER_CARD_PATHS } from '../../infra/routes.js';
import { RESOURCE_METADATA_PATH } from '../../shared/mcp/protected-resource.js';
import { SERVER_CARD_PATHS as SERVED_CARD_PATHS } from '../../shared/mcp/server-card.js';

const infraDir = join(import.meta.dirname, '..', '..', 'infra');
/** What infra/ may import: CDK, zod, Node's built-ins, its own modules and the plain-data schemas. */
const allowed = [
  /^aws-cdk-lib(\/|$)/,
  /^constructs$/,
  /^cdk-nag$/,
  /^zod$/,
  /^node:/,
  /^\.\/[\w-]+\.js$/,
  /^\.\.\/schemas\/[\w-]+\.js$/,
];

function importsOf(source: string): string[] {
  return [
    ...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => (match[1] ?? match[2]) as string);
}

describe('infra/ imports', () => {
  const files = readdirSync(infraDir).filter((file) => file.endsWith('.ts'));

  it('reads only the catalog and plain-data schemas, never runtime code (shared/, functions/)', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files)
      for (const specifier of importsOf(readFileSync(join(infraDir, file), 'utf8')))
        expect(
          allowed.some((pattern) => pattern.test(specifier)),
          `${file} imports ${specifier}`,
        ).toBe(true);
  });

  it('catches a runtime import (the scan itself works)', () => {
    const bad = importsOf("import { loadConfig } from '../shared/config.js';\nimport x from 'hono';");
    expect(bad).toEqual(['../shared/config.js', 'hono']);
    expect(bad.some((specifier) => allowed.some((pattern) => pattern.test(specifier)))).toBe(false);
  });

  it('routes the Protected Resource Metadata paths the MCP adapter serves', () => {
    expect(PROTECTED_RESOURCE_METADATA_PATHS).toEqual([
      RESOURCE_METADATA_PATH,
      `${RESOURCE_METADATA_PATH}/mcp`,
    ]);
  });

  it('routes the server card paths the pages function serves', () => {
    expect(SERVER_CARD_PATHS).toEqual(SERVED_CARD_PATHS);
  });
});
