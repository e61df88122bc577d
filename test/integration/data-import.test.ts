/**
 * `npm run data -- import` as operators run it: bad lines are reported by file and line and skipped,
 * every good line is served afterwards through the API (DATASET), and a re-import under a running
 * `npm start` never makes it answer from a partial database: every request in flight during the
 * switch gets a whole answer, and the new data arrives without a restart.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { generateDatasetFiles } from '../../shared/sources/dataset/generate-files.js';
import type { PersonRecord } from '../../shared/sources/dataset/model.js';
import { startHarness } from '../support/harness.js';
import { cleanUpProcesses, freshDataDir, runDataCli, startServer } from '../support/processes.js';

afterAll(cleanUpProcesses);

const lineCount = async (file: string) => (await readFile(file, 'utf8')).split('\n').length - 1;
const details = (username: string) => `/v1/profiles/details/by-username?${new URLSearchParams({ username })}`;

describe('npm run data -- import', () => {
  it('reports each bad line by file and line, keeps the good ones, and the API serves them', async () => {
    const folder = await freshDataDir();
    const dir = join(folder, 'dataset');
    await generateDatasetFiles({ profiles: 300, out: dir });
    const people = join(dir, 'people.jsonl');
    const [first] = (await readFile(people, 'utf8')).split('\n');
    const template = JSON.parse(first as string) as PersonRecord;
    const newcomer = {
      ...template,
      internalId: 'person-imported',
      username: 'imported-newcomer',
      publicId: 'ACoAAImportedNewcomer000000000000000',
      fullName: 'Imported Newcomer',
    };
    const peopleLines = await lineCount(people);
    await appendFile(
      people,
      [
        '{"username": "broken',
        JSON.stringify({
          ...newcomer,
          publicId: 'ACoAAOther',
          username: fx.richProfile.username,
          fullName: 'Impostor',
        }),
        JSON.stringify({ ...newcomer, followerCount: 'many' }),
        JSON.stringify(newcomer),
        '',
      ].join('\n'),
    );
    const companies = join(dir, 'companies.jsonl');
    const companyLines = await lineCount(companies);
    await appendFile(companies, '{"name": 1}\n');

    const out = join(folder, 'dataset.sqlite');
    const result = await runDataCli(['import', dir, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const reported = result.stderr.split('\n').filter((line) => line.includes(': skipped: '));
    expect(reported).toEqual([
      expect.stringMatching(new RegExp(`^companies\\.jsonl:${companyLines + 1}: skipped: `)),
      expect.stringMatching(new RegExp(`^people\\.jsonl:${peopleLines + 1}: skipped: not JSON`)),
      expect.stringMatching(
        new RegExp(`^people\\.jsonl:${peopleLines + 2}: skipped: an identifier .* already taken`),
      ),
      expect.stringMatching(new RegExp(`^people\\.jsonl:${peopleLines + 3}: skipped: followerCount: `)),
    ]);
    const summary = JSON.parse(result.stdout) as {
      files: { file: string; imported: number; skipped: number }[];
    };
    expect(summary.files.find((file) => file.file === 'people.jsonl')).toEqual({
      file: 'people.jsonl',
      imported: peopleLines + 1,
      skipped: 3,
    });
    expect(summary.files.find((file) => file.file === 'companies.jsonl')).toEqual({
      file: 'companies.jsonl',
      imported: companyLines,
      skipped: 1,
    });

    const harness = await startHarness({ env: { DATASET: out } });
    try {
      const { apiKey } = await harness.provision({ credits: 100 });
      const added = await harness.get(details(newcomer.username), apiKey);
      expect(added.status).toBe(200);
      expect((await added.json()).data.fullName).toBe('Imported Newcomer');
      const kept = await harness.get(details(fx.richProfile.username), apiKey);
      expect((await kept.json()).data.fullName).toBe(fx.richProfile.fullName);
    } finally {
      await harness.close();
    }
  });

  it('replaces the database under a running server: every answer whole, the new data served', async () => {
    const folder = await freshDataDir();
    const [before, after] = [join(folder, 'before'), join(folder, 'after')];
    await generateDatasetFiles({ profiles: 300, out: before });
    await generateDatasetFiles({ profiles: 600, seed: 9, out: after });
    const onlyAfter = JSON.parse(
      (await readFile(join(after, 'people.jsonl'), 'utf8')).split('\n')[500] as string,
    ) as PersonRecord;
    const out = join(folder, 'served.sqlite');
    expect((await runDataCli(['import', before, '--out', out])).code).toBe(0);

    const server = await startServer(await freshDataDir(), {
      DATASET: out,
      DEFAULT_RATE_LIMIT: '1000000',
      DEMO_ACCOUNT_CREDITS: '1000000',
    });
    const ask = async (username: string) => {
      const response = await fetch(`${server.url}${details(username)}`, {
        headers: { authorization: `Bearer ${server.demoKey}` },
      });
      return { status: response.status, body: await response.json() };
    };
    try {
      expect((await ask(onlyAfter.username)).status).toBe(404);
      let importing = true;
      const answers: { status: number; body: { data?: { username?: string } } }[] = [];
      const reading = (async () => {
        while (importing) answers.push(await ask(fx.richProfile.username));
      })();
      const imported = await runDataCli(['import', after, '--out', out]);
      importing = false;
      await reading;
      expect(imported.code, imported.stderr).toBe(0);
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body.data?.username).toBe(fx.richProfile.username);
      }
      // The server looks at the file at most once a second.
      const deadline = Date.now() + 10_000;
      let status = 404;
      while (status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        ({ status } = await ask(onlyAfter.username));
      }
      expect(status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
