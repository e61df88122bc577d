/**
 * `npm start` that cannot start says why in one line on stderr, naming the setting and what to do,
 * and exits with a non-zero code: no library stack.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  type CliResult,
  cleanUpProcesses,
  freshDataDir,
  runFailingServer,
  startServer,
} from '../support/processes.js';

afterAll(cleanUpProcesses);

/** The whole of stderr is one line matching `line`; nothing on stdout; exit code 1. */
function expectOneLine(result: CliResult, line: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  expect(result.stderr).toMatch(line);
}

it('names PORT and its range when PORT is not a number', async () => {
  const result = await runFailingServer(await freshDataDir(), { PORT: 'abc' });
  expectOneLine(result, /^Invalid configuration: PORT: must be a whole number from 0 to 65535\. Correct /);
});

it('names PORT when the port is in use, and leaves DATA_DIR usable by the next start', async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  const dataDir = await freshDataDir();
  try {
    const result = await runFailingServer(dataDir, { PORT: String(port) });
    expectOneLine(
      result,
      new RegExp(
        `^PORT ${port} on HOST 127\\.0\\.0\\.1 is already in use: .*set PORT to a free port\\.$`,
        'm',
      ),
    );
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
  // The failed start closed its store: the same folder serves at once.
  const server = await startServer(dataDir);
  expect(await server.stop()).toBe(0);
});

it('names DATASET when its file is missing or is not a dataset database', async () => {
  const dataDir = await freshDataDir();
  const missing = join(dataDir, 'missing.sqlite');
  expectOneLine(
    await runFailingServer(dataDir, { DATASET: missing }),
    new RegExp(
      `^DATASET=${missing}: The dataset database ${missing} cannot be opened: .* Set DATASET to a file built by npm run data -- import`,
    ),
  );
  const text = join(dataDir, 'notes.txt');
  await writeFile(text, 'not a database');
  expectOneLine(
    await runFailingServer(dataDir, { DATASET: text }),
    /^DATASET=.*notes\.txt: .*is not a dataset database/,
  );
});

it('names HOST when it is not an address of this machine', async () => {
  const result = await runFailingServer(await freshDataDir(), { HOST: '192.0.2.1' });
  expectOneLine(result, /^HOST 192\.0\.2\.1 is not an address of this machine: set HOST /);
});

it.each([
  [
    'sqlite',
    (dataDir: string) =>
      `^Another server \\(npm start or npm run start:synth\\) is using DATA_DIR=${dataDir}: stop it, or set DATA_DIR`,
  ],
  [
    'dynamodb',
    (dataDir: string) => `^Cannot open the store in DATA_DIR=${dataDir} \\(.*\\)\\. Stop any other npm start`,
  ],
])(
  'names DATA_DIR when another npm start holds it (STORE=%s), and leaves that server running',
  async (store, line) => {
    const dataDir = await freshDataDir();
    const first = await startServer(dataDir, { STORE: store });
    try {
      const second = await runFailingServer(dataDir, { STORE: store });
      expectOneLine(second, new RegExp(line(dataDir)));
      const response = await fetch(`${first.url}/v1/emails/disposable?email=a%40b.com`, {
        headers: { Authorization: `Bearer ${first.demoKey}` },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  },
);

it('names DATA_DIR when it is not a folder', async () => {
  const dataDir = await freshDataDir();
  const file = join(dataDir, 'not-a-folder');
  await writeFile(file, '');
  const result = await runFailingServer(dataDir, { DATA_DIR: file });
  expectOneLine(result, new RegExp(`^Cannot open the store in DATA_DIR=${file} \\(`));
});
