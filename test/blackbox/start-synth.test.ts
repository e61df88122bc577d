/**
 * What only the synthesized app served locally (`npm run start:synth`) can show, seen from a client:
 * a function that outlives its integration timeout is API Gateway's 504 and the debit it left is
 * refunded by the scheduled reconcile function; a function that crashes is 502; the next request
 * starts a fresh environment (a cold start, logged); and a template edited to drop a route, API
 * Gateway's invoke permission or /mcp's permission on a tool-group function fails here, as it would
 * on AWS, whatever the catalog says. The black-box suite (service.test.ts) covers the traffic both
 * servers must answer alike. And the operator CLI on the DATA_DIR start:synth serves writes to
 * start:synth's own table (through its local DynamoDB, as the operator), not to the SQLite store
 * beside it: the keys it creates work at once.
 *
 * Batches (issue 28) take the AWS path here: the batches function sends each item to its group's SQS
 * queue, the group's consumer function runs it from the event source mapping, and the results and
 * the ledger come out as a single call's; a poisoned message sent to the profiles queue with the real
 * SQS client lands in its dead-letter queue (on the edited template, whose redrive comes sooner).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import type { BatchState, ResultLine } from '../support/batch-answers.js';
import { builtFunctions } from '../support/built-functions.js';
import { connectClient } from '../support/mcp-server.js';
import { ROOT } from '../support/process-group.js';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  runCli,
  runFailingServer,
  startServer,
} from '../support/processes.js';
import { identifierValues, knownUsernames } from '../support/sample-inputs.js';
import { startWebServer, type WebServer } from '../support/web-servers.js';

const SCRIPT = 'functions/local/start-synth.ts';
// Long enough for a cold website function (Chromium unpacked per environment, as on Lambda) on a busy
// 2-core machine; the 504 case waits it out once.
const TIMEOUT_SECONDS = 10;
const page = '<!doctype html><html><head><title>A page</title></head><body><p>Plain text.</p></body></html>';

let site: WebServer;
/** Requests to /hang, answered never (until the server closes). */
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  await builtFunctions();
  site = await startWebServer({
    routes: {
      '/page': page,
      '/hang': (_req, res) => {
        hanging.push(res);
      },
    },
  });
}, 600_000);

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await site?.close();
  await cleanUpProcesses();
});

const bearer = (service: RunningServer) => ({ Authorization: `Bearer ${service.demoKey}` });
const websiteText = (service: RunningServer, path: string) =>
  fetch(`${service.url}/v1/websites/text?url=${encodeURIComponent(`${site.origin}${path}`)}`, {
    headers: bearer(service),
  });

/** The balance, as a lookup of a profile that does not exist answers it (404, refunded). */
async function balance(service: RunningServer): Promise<number> {
  const response = await fetch(`${service.url}/v1/profiles/details/by-username?username=no-such-person-0`, {
    headers: bearer(service),
  });
  expect(response.status).toBe(404);
  return Number(response.headers.get('x-credits-remaining'));
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface CreatedAccount {
  accountId: string;
  apiKey: string;
}

const PROFILE_PRICE = 2;
const withKey = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** Creates a batch of profile lookups by username over HTTP; answers its state. */
async function createProfileBatch(service: RunningServer, apiKey: string, usernames: readonly string[]) {
  const response = await fetch(`${service.url}/v1/batches?operation=profiles.details`, {
    method: 'POST',
    headers: { ...withKey(apiKey), 'Content-Type': 'application/json' },
    body: JSON.stringify(usernames.map((username) => ({ username }))),
  });
  const body = (await response.json()) as { data: BatchState };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

/** Polls the batch once a second (its reads count in the account reads' window) until it completed. */
async function completed(service: RunningServer, apiKey: string, batchId: string): Promise<BatchState> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const response = await fetch(`${service.url}/v1/batches/${batchId}`, { headers: withKey(apiKey) });
    expect(response.status).toBe(200);
    const state = ((await response.json()) as { data: BatchState }).data;
    if (state.state === 'completed') return state;
    if (Date.now() > deadline) throw new Error(`Batch ${batchId} did not complete: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function resultsOf(service: RunningServer, apiKey: string, batchId: string): Promise<ResultLine[]> {
  const response = await fetch(`${service.url}/v1/batches/${batchId}/results`, { headers: withKey(apiKey) });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ResultLine);
}

/** What a single call answers, without the parts that differ per request. */
function comparable(body: ResultLine['body']) {
  if (!body) return body;
  const { requestId: _requestId, ...meta } = body.meta ?? {};
  return body.error ? { error: body.error } : { data: body.data, meta };
}

/** An SQS client as the operator (the key start:synth records in DATA_DIR), on the banner's endpoint. */
function operatorSqs(service: RunningServer, dataDir: string): SQSClient {
  const endpoint = /\d+ queues on (http:\/\/\S+)/.exec(service.output())?.[1];
  expect(endpoint, 'the banner names the queue endpoint').toBeDefined();
  const { credentials, region } = JSON.parse(
    readFileSync(join(dataDir, 'synth', 'dynamodb-endpoint'), 'utf8'),
  ) as { credentials: { accessKeyId: string; secretAccessKey: string }; region: string };
  return new SQSClient({ endpoint, region, credentials, maxAttempts: 1 });
}

/** Receives (and deletes) from a queue until `count` messages came or the time is up. */
async function drain(sqs: SQSClient, queueUrl: string, count: number, withinMs: number): Promise<Message[]> {
  const received: Message[] = [];
  const deadline = Date.now() + withinMs;
  while (received.length < count && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const message of Messages) {
      received.push(message);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
  return received;
}

/** The pids of the Node processes running `functionName` (their environment names it). */
function processesOf(functionName: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      return environment.includes(`AWS_LAMBDA_FUNCTION_NAME=${functionName}`) &&
        command.includes('lambda-runtime')
        ? [Number(entry)]
        : [];
    } catch {
      return [];
    }
  });
}

describe('timeouts, crashes and restarts', () => {
  let service: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await freshDataDir();
    // An SQLite store already in the folder, as `npm run admin` on the default store leaves it.
    const sqlite = await runCli(dataDir, ['accounts', 'create', '--name', 'Only in SQLite']);
    expect(sqlite.code, sqlite.stderr).toBe(0);
    service = await startServer(
      dataDir,
      {
        LOG_LEVEL: 'info',
        UNSAFE_WEBSITE_ALLOW_HOSTS: site.hostPort,
        START_SYNTH_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        START_SYNTH_SCHEDULE_SECONDS: '2',
        RECONCILE_AFTER_SECONDS: '1',
      },
      SCRIPT,
      300_000,
    );
  }, 600_000);
  afterAll(() => service?.stop());

  it('answers a function past its integration timeout 504, and reconcile refunds the debit it left', async () => {
    const before = await balance(service);
    const started = Date.now();
    const response = await websiteText(service, '/hang');
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ message: 'Endpoint request timed out' });
    expect(Date.now() - started).toBeLessThan((TIMEOUT_SECONDS + 3) * 1000);
    // The function died at its own timeout, its debit still in flight; the schedule settles it.
    await eventually(
      async () => service.output().includes(`Task timed out after ${TIMEOUT_SECONDS} seconds`),
      10_000,
    );
    await eventually(async () => (await balance(service)) === before, 30_000);
    expect(service.output()).toMatch(/"function":"lookup-dev-reconcile"[^\n]*"settled":1/);
  }, 60_000);

  it('starts a fresh environment for the next request (a cold start, logged)', async () => {
    const coldStarts = () =>
      service
        .output()
        .split('\n')
        .filter(
          (line) => line.includes('"function":"lookup-dev-websites-text"') && line.includes('cold start'),
        ).length;
    const before = coldStarts();
    const response = await websiteText(service, '/page');
    expect(response.status).toBe(200);
    expect((await response.json()).data.text).toContain('Plain text.');
    expect(coldStarts()).toBe(before + 1);
  }, 60_000);

  it('answers a function that crashes mid-request 502, and serves the next request', async () => {
    const asked = hanging.length;
    const answer = websiteText(service, '/hang');
    // The page was asked for: the function is mid-request.
    await eventually(async () => hanging.length > asked, 20_000);
    for (const pid of processesOf('lookup-dev-websites-text')) process.kill(pid, 'SIGKILL');
    const response = await answer;
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
    expect((await websiteText(service, '/page')).status).toBe(200);
  }, 60_000);
  it('replaces an environment that ended while idle, instead of failing the next request', async () => {
    const lookup = () =>
      fetch(
        `${service.url}/v1/jobs/details/by-url?url=${encodeURIComponent(identifierValues.jobs?.url as string)}`,
        {
          headers: bearer(service),
        },
      );
    expect((await lookup()).status).toBe(200);
    const idle = processesOf('lookup-dev-jobs-details');
    expect(idle.length).toBeGreaterThan(0);
    for (const pid of idle) process.kill(pid, 'SIGKILL');
    await eventually(async () => processesOf('lookup-dev-jobs-details').length === 0, 5_000);
    expect((await lookup()).status).toBe(200);
  }, 60_000);

  describe('the operator CLI on the same DATA_DIR', () => {
    it("writes to start:synth's table, not the SQLite store beside it: the key it prints works at once", async () => {
      const created = await cli<CreatedAccount>(
        dataDir,
        'accounts',
        'create',
        '--name',
        'Made by the CLI',
        '--credits',
        '10',
      );
      const v1 = await fetch(
        `${service.url}/v1/profiles/details/by-username?username=${fx.richProfile.username}`,
        { headers: { Authorization: `Bearer ${created.apiKey}` } },
      );
      expect(v1.status).toBe(200);
      expect(v1.headers.get('x-credits-remaining')).toBe(String(10 - 2));
      const v2 = await fetch(`${service.url}/api/v2/companies/${fx.richCompany.slug}`, {
        headers: { 'X-API-Key': created.apiKey },
      });
      expect(v2.status).toBe(200);
      expect(v2.headers.get('x-credits-remaining')).toBe(String(8 - 1));
      // Every other command reads the same table: the usage the server recorded, the accounts it has.
      const usage = await cli<{ balance: number }>(dataDir, 'usage', created.accountId);
      expect(usage.balance).toBe(7);
      const names = (await cli<{ name: string }[]>(dataDir, 'accounts', 'list')).map(({ name }) => name);
      expect(names.sort()).toEqual(['Made by the CLI', 'demo']);
    }, 60_000);

    it('keeps npm start off the DATA_DIR it serves, as one npm start keeps another', async () => {
      const second = await runFailingServer(dataDir);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(
        `Another server (npm start or npm run start:synth) is using DATA_DIR=${dataDir}: stop it, or set DATA_DIR to another folder.\n`,
      );
    });

    it('refuses to guess while npm start on the embedded DynamoDB (which takes no lock) serves the DATA_DIR too', async () => {
      const embedded = await startServer(dataDir, { STORE: 'dynamodb' });
      try {
        const result = await runCli(dataDir, ['accounts', 'list']);
        expect(result).toMatchObject({ code: 1, stdout: '' });
        expect(JSON.parse(result.stderr)).toEqual({
          error: {
            code: 'store_unavailable',
            message: `Both npm start and npm run start:synth are serving DATA_DIR=${dataDir}, each with its own store: stop one of them, or run them on separate DATA_DIRs.`,
          },
        });
      } finally {
        expect(await embedded.stop()).toBe(0);
      }
      // With npm start gone, its record goes with it: the CLI is back on start:synth's table.
      expect((await runCli(dataDir, ['accounts', 'list'])).code).toBe(0);
    }, 60_000);

    it("is the operator to start:synth's DynamoDB, which refuses an access key it does not know", async () => {
      const served = JSON.parse(readFileSync(join(dataDir, 'synth', 'dynamodb-endpoint'), 'utf8')) as {
        endpoint: string;
        table: string;
        region: string;
        credentials: { accessKeyId: string };
      };
      const describeAs = (accessKeyId: string) => {
        const client = new DynamoDBClient({
          endpoint: served.endpoint,
          region: served.region,
          credentials: { accessKeyId, secretAccessKey: 'unused' },
          maxAttempts: 1,
        });
        return client
          .send(new DescribeTableCommand({ TableName: served.table }))
          .finally(() => client.destroy());
      };
      expect((await describeAs(served.credentials.accessKeyId)).Table?.TableName).toBe(served.table);
      await expect(describeAs('AKIAUNKNOWNCALLER000')).rejects.toMatchObject({
        name: 'UnrecognizedClientException',
      });
    });
  });

  describe('a batch of profile lookups through the SQS queues', () => {
    interface LedgerEntry {
      status: 'pending' | 'charged' | 'refunded';
      cost: number;
      transport?: string;
      batchItem?: { batchId: string; index: number };
    }

    it('answers each item as its single call, bills what the ledger says and waits out the rate limit', async () => {
      // 20 lookups per 2 s: the consumers cannot run 50 items at once, and send an item back to its
      // queue with a delay rather than answer it 429.
      const account = await cli<CreatedAccount>(
        dataDir,
        ...['accounts', 'create', '--name', 'Batches on SQS', '--credits', '1000'],
        ...['--rate-limit', '20', '--rate-window-seconds', '2'],
      );
      // One in ten names nobody: a 404, refunded.
      const usernames = Array.from({ length: 50 }, (_, index) =>
        index % 10 === 9 ? `nobody-${index}` : (knownUsernames[index % knownUsernames.length] as string),
      );
      const unknown = usernames.filter((username) => username.startsWith('nobody-')).length;
      const started = Date.now();
      const created = await createProfileBatch(service, account.apiKey, usernames);
      expect(created).toMatchObject({ state: 'queued', items: { total: 50, pending: 50 } });
      const finished = await completed(service, account.apiKey, created.id);
      // 50 lookups at 20 per 2 s take 4 s at least, unless the rate limit was ignored.
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
      expect(finished.items).toEqual({
        total: 50,
        succeeded: 50 - unknown,
        failed: unknown,
        invalid: 0,
        pending: 0,
      });
      expect(finished.credits).toEqual({
        charged: (50 - unknown) * PROFILE_PRICE,
        refunded: unknown * PROFILE_PRICE,
      });
      const lines = await resultsOf(service, account.apiKey, created.id);
      expect(lines.map((line) => line.index)).toEqual(usernames.map((_, index) => index));
      expect(lines.filter((line) => line.status === 429)).toEqual([]);

      // The ledger in start:synth's table, read as the operator: each item once, naming its batch.
      const usage = await cli<{ balance: number; recent: LedgerEntry[] }>(
        dataDir,
        ...['usage', account.accountId, '--recent', '100'],
      );
      const entries = usage.recent.filter((entry) => entry.batchItem?.batchId === created.id);
      expect(entries.map((entry) => entry.batchItem?.index).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        usernames.map((_, index) => index),
      );
      expect(entries.every((entry) => entry.transport === 'batch')).toBe(true);
      const creditsOf = (status: LedgerEntry['status']) =>
        entries.filter((entry) => entry.status === status).reduce((sum, entry) => sum + entry.cost, 0);
      expect({ charged: creditsOf('charged'), refunded: creditsOf('refunded') }).toEqual(finished.credits);
      expect(creditsOf('pending')).toBe(0);
      expect(usage.balance).toBe(1000 - finished.credits.charged);

      // Item by item, the single call's answer (one single call per distinct username, after the batch;
      // they share the account's rate limit, so a 429 is waited out as the batch does).
      const singles = new Map<string, ResultLine['body']>();
      for (const username of new Set(usernames)) {
        const path = `${service.url}/v1/profiles/details/by-username?username=${encodeURIComponent(username)}`;
        let response = await fetch(path, { headers: withKey(account.apiKey) });
        for (let tries = 0; response.status === 429 && tries < 10; tries += 1) {
          await new Promise((resolve) =>
            setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000),
          );
          response = await fetch(path, { headers: withKey(account.apiKey) });
        }
        singles.set(username, (await response.json()) as ResultLine['body']);
      }
      for (const line of lines) {
        const single = singles.get(line.input.username as string) ?? null;
        expect(comparable(line.body), `item ${line.index}`).toEqual(comparable(single));
        expect(line.outcome, `item ${line.index}`).toBe(line.body?.error ? 'failed' : 'succeeded');
      }
    }, 120_000);
  });
});

describe('a template edited to drop a route and three permissions, and to redrive batch items sooner', () => {
  let service: RunningServer;
  let dataDir: string;
  let assembly: string;
  beforeAll(async () => {
    assembly = editedAssembly();
    dataDir = await freshDataDir();
    // Info: the queue pollers log each batch of messages they hand to a consumer.
    service = await startServer(
      dataDir,
      { LOG_LEVEL: 'info', START_SYNTH_CDK_OUT: assembly },
      SCRIPT,
      300_000,
    );
  }, 600_000);
  afterAll(async () => {
    await service?.stop();
    rmSync(assembly, { recursive: true, force: true });
  });

  it("moves a poisoned message on the profiles batch queue to its dead-letter queue after the redrive policy's receives", async () => {
    const sqs = operatorSqs(service, dataDir);
    try {
      const urlOf = async (QueueName: string) =>
        (await sqs.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl as string;
      const poisoned = await sqs.send(
        new SendMessageCommand({ QueueUrl: await urlOf(PROFILES_BATCH_QUEUE), MessageBody: 'not json' }),
      );
      // A good batch on the same queue meanwhile: unaffected.
      const usernames = knownUsernames.slice(0, 10);
      const created = await createProfileBatch(service, service.demoKey, usernames);
      const finished = await completed(service, service.demoKey, created.id);
      expect(finished.items).toMatchObject({
        total: usernames.length,
        succeeded: usernames.length,
        failed: 0,
      });
      const lines = await resultsOf(service, service.demoKey, created.id);
      expect(lines.map((line) => line.status)).toEqual(usernames.map(() => 200));

      const dead = await drain(sqs, await urlOf(`${PROFILES_BATCH_QUEUE}-dlq`), 1, 60_000);
      expect(dead.map(({ MessageId, Body }) => ({ MessageId, Body }))).toEqual([
        { MessageId: poisoned.MessageId, Body: 'not json' },
      ]);
      // The consumer was handed it once per allowed receive, and reported it failed each time.
      const failedBatches = service
        .output()
        .split('\n')
        .filter((line) =>
          new RegExp(`"queue":"${PROFILES_BATCH_QUEUE}"[^\n]*"failed":1[^\n]*queue batch`).test(line),
        );
      expect(failedBatches).toHaveLength(PROFILES_MAX_RECEIVE_COUNT);
    } finally {
      sqs.destroy();
    }
  }, 120_000);

  it('answers the dropped route with the catch-all 404, not the operation', async () => {
    const dropped = await fetch(`${service.url}/v1/jobs/search?keywords=engineer`, {
      headers: bearer(service),
    });
    expect(dropped.status).toBe(404);
    // The pages function's catch-all: the jobs-search function would never say so.
    expect((await dropped.json()).error).toMatchObject({
      code: 'resource_not_found',
      message: 'No endpoint at this path.',
    });
    const jobUrl = encodeURIComponent(identifierValues.jobs?.url as string);
    const kept = await fetch(`${service.url}/v1/jobs/details/by-url?url=${jobUrl}`, {
      headers: bearer(service),
    });
    expect(kept.status).toBe(200);
  });

  it("answers a route whose integration URI does not match its transfer mode with API Gateway's 500", async () => {
    const response = await fetch(`${service.url}/api/v2/jobs/search/filters`, {
      headers: { 'X-API-Key': service.demoKey },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
  });

  it("answers a route whose function API Gateway may not invoke with API Gateway's 500", async () => {
    const response = await fetch(`${service.url}/v1/companies/details/by-slug?slug=${fx.richCompany.slug}`, {
      headers: bearer(service),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
  });

  it('refuses a lookup whose function may not bill in the table, charging nothing', async () => {
    const response = await fetch(`${service.url}/v1/posts/details/by-slug?slug=${fx.post.slug}`, {
      headers: bearer(service),
    });
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe('service_unavailable');
    expect(service.output()).toMatch(
      /"function":"lookup-dev-posts-details"[^\n]*"action":"dynamodb:UpdateItem"[^\n]*access denied/,
    );
  });

  it('fails a tool call /mcp may not hand to its group function, and runs the others', async () => {
    const mcp = await connectClient(`${service.url}/mcp`, service.demoKey);
    try {
      const denied = (await mcp.callTool({
        name: 'get_job_details',
        arguments: { url: identifierValues.jobs?.url },
      })) as CallToolResult;
      expect(denied.isError).toBe(true);
      expect((denied.structuredContent as { error: { code: string } }).error.code).toBe(
        'service_unavailable',
      );
      expect(service.output()).toContain('access denied');
      const allowed = (await mcp.callTool({
        name: 'get_profile_details',
        arguments: { username: fx.richProfile.username },
      })) as CallToolResult;
      expect(allowed.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  });
});

/** The name the edited template gives the profiles batch queue (its dead-letter queue: `<name>-dlq`). */
const PROFILES_BATCH_QUEUE = 'edited-batch-profiles';
const PROFILES_MAX_RECEIVE_COUNT = 2;

/**
 * A copy of cdk.out (templates copied, code assets linked) without the ANY method of /v1/jobs/search
 * (and with /api/v2/jobs/search/filters' streamed integration marked buffered),
 * API Gateway's invoke permission on companies-details, posts-details' billing grant on the table,
 * and /mcp's invoke grant on the jobs group; and with the profiles batch queue and its dead-letter
 * queue named (a client asks for their URLs by name), redriven after 2 receives, visible again after
 * its consumer's timeout (the least Lambda accepts): a poisoned message reaches the dead-letter queue
 * in seconds, not the minutes of the deployed defaults.
 */
function editedAssembly(): string {
  const source = join(ROOT, 'cdk.out');
  const copy = mkdtempSync(join(tmpdir(), 'edited-cdk-out-'));
  for (const entry of readdirSync(source)) {
    if (entry.startsWith('asset.')) symlinkSync(join(source, entry), join(copy, entry));
    else cpSync(join(source, entry), join(copy, entry), { recursive: true });
  }
  const fileOf = (pattern: RegExp) => readdirSync(copy).find((entry) => pattern.test(entry)) as string;
  const templateOf = (file: string) =>
    JSON.parse(readFileSync(join(copy, file), 'utf8')) as { Resources: Record<string, Resource> };
  const edit = (pattern: RegExp, change: (resources: Record<string, Resource>) => number) => {
    const file = fileOf(pattern);
    const template = templateOf(file);
    expect(change(template.Resources), file).toBe(1);
    writeFileSync(join(copy, file), JSON.stringify(template));
  };
  edit(/Routesjobs.*\.nested\.template\.json$/, (resources) => {
    const pathOf = (id: string): string => {
      const resource = resources[id]?.Properties as
        | { PathPart: string; ParentId: { Ref: string } }
        | undefined;
      if (!resource) return `<${id}>`;
      return `${pathOf(resource.ParentId.Ref)}/${resource.PathPart}`;
    };
    const methods = Object.entries(resources).filter(
      ([, resource]) =>
        resource.Type === 'AWS::ApiGateway::Method' &&
        /Apiv1[0-9A-F]{8}Ref>\/jobs\/search$/.test(
          pathOf((resource.Properties.ResourceId as { Ref: string }).Ref),
        ),
    );
    for (const [id] of methods) delete resources[id];
    // And a streamed integration that claims to be buffered (its URI still the streaming one).
    const filters = Object.values(resources).find(
      (resource) =>
        resource.Type === 'AWS::ApiGateway::Method' &&
        /\/jobs\/search\/filters$/.test(pathOf((resource.Properties.ResourceId as { Ref: string }).Ref)),
    );
    (filters?.Properties.Integration as { ResponseTransferMode?: string }).ResponseTransferMode = 'BUFFERED';
    return methods.length;
  });
  edit(/Routescompanies.*\.nested\.template\.json$/, (resources) => {
    const permissions = Object.entries(resources).filter(
      ([, resource]) =>
        resource.Type === 'AWS::Lambda::Permission' &&
        /companiesdetails[0-9A-F]{8}Arn$/.test(
          String((resource.Properties.FunctionName as { Ref: string }).Ref),
        ),
    );
    for (const [id] of permissions) delete resources[id];
    return permissions.length;
  });
  edit(/Functionsposts.*\.nested\.template\.json$/, (resources) => {
    const policy = Object.entries(resources).find(
      ([id, resource]) => resource.Type === 'AWS::IAM::Policy' && id.startsWith('postsdetailsrole'),
    )?.[1];
    const document = policy?.Properties.PolicyDocument as { Statement: { Sid?: string }[] } | undefined;
    if (!document) return 0;
    const kept = document.Statement.filter((statement) => statement.Sid !== 'bill');
    const removed = document.Statement.length - kept.length;
    document.Statement = kept;
    return removed;
  });
  edit(/Functionsmcp.*\.nested\.template\.json$/, (resources) => {
    let removed = 0;
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const document = resource.Properties.PolicyDocument as { Statement: { Sid?: string }[] };
      const kept = document.Statement.filter((statement) => statement.Sid !== 'invokejobs');
      removed += document.Statement.length - kept.length;
      document.Statement = kept;
    }
    return removed;
  });
  const consumer = Object.entries(
    templateOf(fileOf(/Functionsprofiles.*\.nested\.template\.json$/)).Resources,
  ).find(
    ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith('batchprofiles'),
  )?.[1];
  const consumerTimeout = consumer?.Properties.Timeout as number;
  expect(consumerTimeout).toBeGreaterThan(0);
  edit(/^LookupService-[a-z0-9-]+\.template\.json$/, (resources) => {
    const queues = Object.entries(resources).filter(
      ([id, resource]) => resource.Type === 'AWS::SQS::Queue' && /^BatchQueuesprofiles[0-9A-F]{8}$/.test(id),
    );
    for (const [, queue] of queues) {
      const redrive = queue.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } };
      const deadLetters = resources[redrive.deadLetterTargetArn['Fn::GetAtt'][0]] as Resource;
      queue.Properties.QueueName = PROFILES_BATCH_QUEUE;
      queue.Properties.VisibilityTimeout = consumerTimeout;
      queue.Properties.RedrivePolicy = { ...redrive, maxReceiveCount: PROFILES_MAX_RECEIVE_COUNT };
      deadLetters.Properties.QueueName = `${PROFILES_BATCH_QUEUE}-dlq`;
    }
    return queues.length;
  });
  return copy;
}

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
