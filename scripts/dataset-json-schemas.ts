/**
 * The published JSON Schema of the dataset format: one file per JSON Lines file and one for the
 * manifest under schemas/dataset/, generated from the zod schemas of schemas/dataset-format.ts so
 * they cannot drift. `npm run docs` writes them; a test fails when a committed file is stale.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { datasetFiles, datasetManifestSchema, MANIFEST_FILE } from '../schemas/dataset-format.js';

export const JSON_SCHEMA_FOLDER = 'schemas/dataset';

/** "people.jsonl" → "schemas/dataset/people.schema.json". */
const schemaPath = (file: string) => `${JSON_SCHEMA_FOLDER}/${file.replace(/\.jsonl?$/, '')}.schema.json`;

/** Each published file: its path from the repository root and its JSON text (before formatting). */
export function datasetJsonSchemas(): { path: string; text: string }[] {
  const schemas = [
    { file: MANIFEST_FILE, schema: datasetManifestSchema },
    ...datasetFiles.map(({ file, schema }) => ({ file, schema: schema as z.ZodType })),
  ];
  return schemas.map(({ file, schema }) => ({
    path: schemaPath(file),
    text: `${JSON.stringify(z.toJSONSchema(schema), null, 2)}\n`,
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const { path, text } of datasetJsonSchemas()) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  // Laid out as the formatter wants them, so `npm run lint` passes; the test compares content.
  execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', JSON_SCHEMA_FOLDER], {
    cwd: root,
    stdio: 'ignore',
  });
}
