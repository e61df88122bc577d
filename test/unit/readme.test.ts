/**
 * The README's endpoint table is the catalog's: a change to an operation without `npm run docs`
 * fails here.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { endpointTable, replaceBlock } from '../../scripts/endpoint-table.js';

it('lists every catalog path with its parameters, price and paging', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  expect(replaceBlock(readme, endpointTable())).toBe(readme);
  expect(readme).toContain('| `GET /v1/profiles/details/by-id` | `publicId` | 2 |');
});
