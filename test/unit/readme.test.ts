/**
 * The README and docs/ stand alone in a clone: the endpoint table is the catalog's (a change to an
 * operation without `npm run docs` fails here), and no page points to a file outside the repository.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { endpointTable, generatedPages, regenerate, replaceBlock } from '../../scripts/endpoint-table.js';
import { settingNames } from '../../shared/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('lists every catalog path with its parameters, price and paging', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  expect(replaceBlock(readme, endpointTable())).toBe(readme);
  expect(readme).toContain('| `GET /v1/profiles/details/by-id` | `publicId` | 2 |');
});

it.each(generatedPages.map((page) => [page.path, page] as const))(
  'keeps every generated table and catalog count of %s up to date',
  async (path, page) => {
    const text = await readFile(join(ROOT, path), 'utf8');
    expect(regenerate(text, page.blocks())).toBe(text);
  },
);

it('lists every v2 route in the README and maps every catalog operation to a v2 path in docs/api.md', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(
    '| `GET /api/v2/profiles/{public_identifier}/posts` | `cursor`? | 1 | cursor | `{public_identifier}` = `username` |  |',
  );
  const api = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
  expect(api).toContain(
    '| companies.similar | `/v1/companies/similar/by-slug`<br>`/v1/companies/similar/by-url` | `/api/v2/ext/companies/{universal_name}/similar` |',
  );
  expect(api).not.toMatch(/\| none \|$/m);
});

/** Targets of Markdown links that are files (not web addresses, mail or anchors in the same page). */
function linkedFiles(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] ?? '',
  );
  return targets
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => decodeURIComponent(target.split('#')[0] ?? ''));
}

/** Relative paths that climb out of a folder, wherever they are written (links, code, prose). */
function climbingPaths(markdown: string): string[] {
  return [...markdown.matchAll(/(?:\.\.\/)+[^\s`)"'<>\]]*/g)].map((match) => match[0]);
}

/** A path as a page means it: relative to the page's folder, or to the repository for `/…`. */
function resolvedFrom(page: string, path: string): string {
  return path.startsWith('/') ? join(ROOT, path) : resolve(dirname(page), path);
}

const outside = (path: string) => relative(ROOT, path).startsWith('..');

it('lists every setting in the configuration table, and no setting that does not exist', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  const rows = [...table.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
  expect(new Set(rows)).toEqual(new Set(settingNames));
});

describe('the README and docs/ point only inside the repository', async () => {
  const docs = await readdir(join(ROOT, 'docs'));
  const pages = ['README.md', ...docs.filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  it.each(pages)('%s links only to files of the repository that exist', async (page) => {
    const path = join(ROOT, page);
    const markdown = await readFile(path, 'utf8');
    for (const target of linkedFiles(markdown)) {
      const file = resolvedFrom(path, target);
      expect(outside(file), `${page} links to ${target}, outside the repository`).toBe(false);
      expect(existsSync(file), `${page} links to ${target}, which does not exist`).toBe(true);
    }
  });

  it.each(pages)('%s names no path that climbs out of the repository', async (page) => {
    const path = join(ROOT, page);
    const markdown = await readFile(path, 'utf8');
    const escaping = climbingPaths(markdown).filter((climbing) => outside(resolve(dirname(path), climbing)));
    expect(escaping, `${page} refers to files outside the repository`).toEqual([]);
  });

  it('has the pages a user and a contributor need', () => {
    expect(pages).toEqual(expect.arrayContaining(['docs/api.md', 'docs/architecture.md']));
  });
});

describe('the checks themselves', () => {
  it('find a link and a code span that leave the repository', () => {
    const readme =
      'See [the spec](../shared/SPEC.md) and `../shared/DESIGN.md`, or [api](docs/api.md#errors).';
    expect(linkedFiles(readme)).toEqual(['../shared/SPEC.md', 'docs/api.md']);
    expect(climbingPaths(readme)).toEqual(['../shared/SPEC.md', '../shared/DESIGN.md']);
    const page = join(ROOT, 'README.md');
    expect(climbingPaths(readme).map((path) => outside(resolve(dirname(page), path)))).toEqual([true, true]);
  });

  it('let a page in docs/ link back to the README, and ignore web addresses', () => {
    const page = join(ROOT, 'docs', 'api.md');
    expect(outside(resolve(dirname(page), '../README.md'))).toBe(false);
    expect(linkedFiles('[a](https://example.org/x) [b](mailto:a@b.c) [c](#paging)')).toEqual([]);
  });
});
