/**
 * The 200 examples of the OpenAPI document: what the sample dataset answers to each operation's
 * example input (its catalog entry's `examples`), recorded through the real pipeline into
 * schemas/response-examples.json, so the document shows real answers without running lookups at
 * start-up. `npm run docs` rewrites the file; a test fails when it differs from what the sample
 * answers today. Operations that reach mail servers or web sites cannot run here: their examples
 * are written by hand on their entries (`responseExample`).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalog, v2Routes } from '../schemas/catalog.js';
import type { OperationDefinition } from '../schemas/operation-definition.js';
import { exampleInput } from '../schemas/operation-definition.js';
import { variantOf } from '../schemas/v2-routes.js';
import { provisionAccount } from '../shared/accounts/provisioning.js';
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { createAllImplementations } from '../shared/operations/index.js';
import { createService } from '../shared/service.js';
import { createSqliteStore } from '../shared/store/sqlite/sqlite-store.js';

export const RESPONSE_EXAMPLES_FILE = 'schemas/response-examples.json';

/** The v1 body (`{ data, meta }`) of each operation that needs no network, by operation id. */
export async function recordResponseExamples(): Promise<Record<string, unknown>> {
  const path = join(tmpdir(), `lookup-examples-${randomUUID()}.sqlite`);
  const store = createSqliteStore(path);
  try {
    const service = createService({
      config: loadConfig({ LOG_LEVEL: 'silent', PRICE_OVERRIDES: '' }),
      store,
      logger: createLogger('silent'),
      implementations: (runtime) => createAllImplementations(runtime),
      operations: catalog,
    });
    const { apiKey } = await provisionAccount(service.repositories, {
      name: 'examples',
      credits: 1_000_000,
      rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    });
    const examples: Record<string, unknown> = {};
    for (const operation of service.operations) {
      const { definition } = operation;
      if (definition.runtime.needs.length > 0 || definition.responseExample) continue;
      const variant = documentedVariant(definition);
      const outcome = await service.pipeline.run({
        operation,
        variant,
        credential: { scheme: 'bearer', authorization: `Bearer ${apiKey}` },
        input: { kind: 'query', query: new URLSearchParams(exampleInput(definition, variant)).toString() },
        requestId: 'req_examples',
        transport: 'rest',
      });
      if (outcome.response.status !== 200) {
        throw new Error(
          `${definition.id} answered its example input with ${outcome.response.status}: ${JSON.stringify(outcome.response.body)}`,
        );
      }
      examples[definition.id] = outcome.response.body;
    }
    return examples;
  } finally {
    await store.close();
    await Promise.all(['', '-wal', '-shm'].map((end) => rm(`${path}${end}`, { force: true })));
  }
}

/** The first path the document shows for an operation: its first v1 variant, or its first v2 route. */
function documentedVariant(definition: OperationDefinition) {
  const [first] = definition.variants;
  if (first) return first;
  const route = v2Routes.find((candidate) => candidate.operation.id === definition.id);
  if (!route) throw new Error(`${definition.id} has no path.`);
  return variantOf(route);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const examples = await recordResponseExamples();
  await writeFile(join(root, RESPONSE_EXAMPLES_FILE), `${JSON.stringify(examples, null, 2)}\n`);
  // Laid out as the formatter wants it, so `npm run lint` passes; the test compares content.
  execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', RESPONSE_EXAMPLES_FILE], {
    cwd: root,
    stdio: 'ignore',
  });
}
