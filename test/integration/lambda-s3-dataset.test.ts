import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_DATASET_FILE } from '../../schemas/functions.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import { builtFunctions } from '../support/built-functions.js';
import { LambdaInitError, type LambdaProcess, restRequest, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import { type S3Endpoint, startS3 } from '../support/s3-endpoint.js';

const FUNCTION = 'profiles-details';
const USERNAME = datasetFixtures.richProfile.username;
const DATASET_URI = 's3://lookup-datasets/imports/2026-11-24/dataset.sqlite';
const CORRUPT_URI = 's3://lookup-datasets/imports/corrupt.sqlite';
/** Goes into the function's environment; no failure may print it. */
const SECRET_KEY = 'wJalrXUtnFEMI-not-to-be-printed';

let lambdaTable: LambdaTable;
let s3: S3Endpoint;
let sampleDatabase: string;
/** The function's code directory as infra ships it with datasetS3Uri: without the bundled sample. */
let codeWithoutSample: string;
const cleanUp: string[] = [];
const started: LambdaProcess[] = [];

beforeAll(async () => {
  const bundle = join(await builtFunctions(), FUNCTION);
  sampleDatabase = join(bundle, BUNDLED_DATASET_FILE);
  codeWithoutSample = join(await mkdtemp(join(tmpdir(), 's3-dataset-code-')), FUNCTION);
  cleanUp.push(dirname(codeWithoutSample));
  await cp(bundle, codeWithoutSample, {
    recursive: true,
    filter: (source) => !source.endsWith(BUNDLED_DATASET_FILE),
  });
  lambdaTable = await openLambdaTable('s3-dataset-test', 100);
  s3 = await startS3(
    new Map([
      [DATASET_URI, { file: sampleDatabase }],
      [CORRUPT_URI, { file: sampleDatabase, corrupt: true }],
    ]),
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(started.map((lambda) => lambda.stop()));
  await s3?.close();
  await lambdaTable?.close();
  await Promise.all(cleanUp.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** The data function with DATASET naming an object of the loopback S3. */
async function start(dataset: string, extra: Record<string, string> = {}): Promise<LambdaProcess> {
  const lambda = await startLambda(
    FUNCTION,
    {
      ...lambdaTable.env,
      DATASET: dataset,
      AWS_ENDPOINT_URL_S3: s3.url,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      ...extra,
    },
    codeWithoutSample,
  );
  started.push(lambda);
  return lambda;
}

const failureOf = (dataset: string) => start(dataset).catch((error: unknown) => error);

async function lookUp(lambda: LambdaProcess, username: string) {
  const answer = await restRequest(lambda, {
    method: 'GET',
    path: '/v1/profiles/details/by-username',
    query: [['username', username]],
    headers: { Authorization: `Bearer ${lambdaTable.apiKey}` },
  });
  return { status: answer.status, body: JSON.parse(answer.text) };
}

/** The copies of dataset objects in a function's ephemeral storage (its TMPDIR). */
async function copiesIn(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((file) => /^dataset-[0-9a-f]{16}\.sqlite$/.test(file));
}

describe('a data function whose DATASET is an S3 object', () => {
  it('copies the object into its ephemeral storage at init and answers from it, downloading once', async () => {
    const before = s3.gets(DATASET_URI);
    const lambda = await start(DATASET_URI);
    expect(s3.gets(DATASET_URI)).toBe(before + 1);
    // Its TMPDIR is the task root's parent (lambda-process.ts); the code carries no database.
    const ephemeral = dirname(lambda.taskRoot);
    const [copy] = await copiesIn(ephemeral);
    expect(copy).toBeDefined();
    expect((await stat(join(ephemeral, copy as string))).size).toBe((await stat(sampleDatabase)).size);
    expect(await readdir(lambda.taskRoot)).not.toContain(BUNDLED_DATASET_FILE);

    const first = await lookUp(lambda, USERNAME);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ username: USERNAME });
    expect((await lookUp(lambda, 'nobody-has-this-name')).status).toBe(404);
    expect((await lookUp(lambda, USERNAME)).status).toBe(200);
    // Two more invokes of the warm function: no further GET.
    expect(s3.gets(DATASET_URI)).toBe(before + 1);
  }, 60_000);

  it('reuses a whole copy left in the same ephemeral storage by an earlier init', async () => {
    const ephemeral = await mkdtemp(join(tmpdir(), 's3-dataset-tmp-'));
    cleanUp.push(ephemeral);
    const before = s3.gets(DATASET_URI);
    const first = await start(DATASET_URI, { TMPDIR: ephemeral });
    await first.stop();
    const second = await start(DATASET_URI, { TMPDIR: ephemeral });
    expect(s3.gets(DATASET_URI)).toBe(before + 1);
    expect(await copiesIn(ephemeral)).toHaveLength(1);
    expect((await lookUp(second, USERNAME)).status).toBe(200);
  }, 60_000);

  it('fails its init naming DATASET and the URI when the object is missing, printing no credential', async () => {
    const missing = 's3://lookup-datasets/imports/missing.sqlite';
    const failure = await failureOf(missing);
    expect(failure).toBeInstanceOf(LambdaInitError);
    const message = String(failure);
    expect(message).toMatch(
      /DATASET: cannot copy s3:\/\/lookup-datasets\/imports\/missing\.sqlite to ephemeral storage: NoSuchKey/,
    );
    expect(message).not.toContain(SECRET_KEY);
    expect(s3.gets(missing)).toBe(1);
  }, 60_000);

  it('fails its init when the bytes do not match the checksum S3 sent, keeping no copy', async () => {
    const ephemeral = await mkdtemp(join(tmpdir(), 's3-dataset-tmp-'));
    cleanUp.push(ephemeral);
    const failure = await start(CORRUPT_URI, { TMPDIR: ephemeral }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LambdaInitError);
    expect(String(failure)).toMatch(
      /DATASET: cannot copy s3:\/\/lookup-datasets\/imports\/corrupt\.sqlite .*checksum/i,
    );
    expect(await readdir(ephemeral)).toEqual([]);
  }, 60_000);

  it('refuses a DATASET that is not s3://<bucket>/<key> before any request', async () => {
    const failure = await failureOf('s3://Not_A_Bucket/dataset.sqlite');
    expect(String(failure)).toMatch(
      /DATASET: s3:\/\/Not_A_Bucket\/dataset\.sqlite is not s3:\/\/<bucket>\/<key>/,
    );
    expect(s3.gets('s3://Not_A_Bucket/dataset.sqlite')).toBe(0);
  }, 60_000);
});
