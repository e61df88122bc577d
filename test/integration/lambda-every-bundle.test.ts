/**
 * Every bundle `npm run build` makes answers an event of its kind, each in a fresh process on a copy
 * of its directory alone (no node_modules): an operation function a REST API proxy event for one of
 * its paths (a data lookup its sample request, 200 from the bundled dataset; an email or website
 * operation an authenticated request without parameters, 400 from its own validation, so no mail
 * server or browser is involved), a tool-group function a ToolCall of one of its tools, /mcp an
 * initialize, pages /healthz, the console its sign-in page, oauth its metadata and a client
 * registration, reconcile a scheduled event, batches a list of the caller's batches, and each batch
 * consumer an SQS event (a message naming no batch acknowledged, a malformed one reported failed).
 * lambda-functions.test.ts goes deeper on one function of each kind.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, v2Routes } from '../../schemas/catalog.js';
import {
  batchGroupMembers,
  batchQueueUrlVariable,
  DATA_FAMILIES,
  deployedFunctions,
  type FunctionSpec,
  toolGroupFunctionVariable,
  toolGroups,
} from '../../schemas/functions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import type { Principal } from '../../shared/auth/authenticator.js';
import { Authenticator } from '../../shared/auth/authenticator.js';
import { systemClock } from '../../shared/clock.js';
import { createRepositories } from '../../shared/service.js';
import { builtFunctions } from '../support/built-functions.js';
import { type LambdaProcess, restRequest, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import { mcpInitialize } from '../support/mcp-initialize.js';
import type { ClientRequest } from '../support/rest-api-event.js';
import { sampleRequests } from '../support/sample-inputs.js';

let table: LambdaTable;
let principal: Principal;

beforeAll(async () => {
  await builtFunctions();
  table = await openLambdaTable('every-bundle', 1_000);
  const repositories = createRepositories(table.store);
  principal = await new Authenticator(
    repositories.keys,
    repositories.accounts,
    systemClock,
    0,
  ).authenticateBearer(`Bearer ${table.apiKey}`);
}, 300_000);

afterAll(() => table?.close());

const operations = new Map(
  (catalog as readonly OperationDefinition[]).map((operation) => [operation.id, operation]),
);
const operationOf = (spec: FunctionSpec) => operations.get(spec.operations[0] as OperationDefinition['id']);

/** The kinds infra gives every batch queue's URL: they send items (sent to only when needed here). */
const SENDS_BATCH_ITEMS: readonly FunctionSpec['kind'][] = ['batches', 'batch-consumer', 'reconcile'];
const batchQueueUrls = Object.fromEntries(
  [...batchGroupMembers().keys()].map((group) => [
    batchQueueUrlVariable(group),
    `http://127.0.0.1:9/queue/batch-${group}`,
  ]),
);

/** Starts `spec`'s bundle as infra configures it, hands it to `use`, and stops it. */
async function withFunction<T>(spec: FunctionSpec, use: (lambda: LambdaProcess) => Promise<T>): Promise<T> {
  const lambda = await startLambda(spec.name, (taskRoot) => ({
    ...table.env,
    ...(spec.dataset ? { DATASET: join(taskRoot, 'dataset.sqlite') } : {}),
    ...(SENDS_BATCH_ITEMS.includes(spec.kind) ? batchQueueUrls : {}),
    // /mcp is configured with its group functions' names, as infra sets them (initialize calls none).
    ...(spec.kind === 'mcp'
      ? Object.fromEntries(
          [...toolGroups().keys()].map((group) => [toolGroupFunctionVariable(group), `lookup-${group}`]),
        )
      : {}),
  }));
  try {
    return await use(lambda);
  } finally {
    await lambda.stop();
  }
}

async function rest(spec: FunctionSpec, client: ClientRequest) {
  const answered = await withFunction(spec, (lambda) => restRequest(lambda, client));
  return { status: answered.status, body: JSON.parse(answered.text) };
}

const withKey = () => ({ Authorization: `Bearer ${table.apiKey}` });

describe.each(deployedFunctions().filter((spec) => spec.kind === 'operation'))('$name', (spec) => {
  it('answers a REST API proxy event for one of its paths', async () => {
    const operation = operationOf(spec) as OperationDefinition;
    const v1 = operation.variants.length > 0 ? sampleRequests(operation)[0] : undefined;
    const v2 = v2Routes.find((route) => route.operation.id === operation.id);
    if (DATA_FAMILIES.includes(operation.family) && v1) {
      const answered = await rest(spec, {
        method: 'GET',
        path: v1.path,
        query: Object.entries(v1.parameters),
        headers: withKey(),
      });
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body.meta).toMatchObject({ creditCost: operation.price });
      return;
    }
    // An email or website operation (or a v2-only one): its own validation answers, after the key check.
    const path = v1?.path ?? (v2?.path.replace(/\{[^}]+\}/g, 'x') as string);
    const answered = await rest(spec, {
      method: 'GET',
      path,
      headers: v1 ? withKey() : { 'X-API-Key': table.apiKey },
    });
    expect([200, 400, 404], JSON.stringify(answered.body)).toContain(answered.status);
    if (answered.status === 200) expect(answered.body).toHaveProperty('data');
    else
      expect(answered.body.error.code, JSON.stringify(answered.body)).toMatch(
        /^(invalid_request|resource_not_found)$/,
      );
  }, 60_000);
});

describe.each(deployedFunctions().filter((spec) => spec.kind === 'tool-group'))('$name', (spec) => {
  it('answers a ToolCall of one of its tools', async () => {
    const operation = operationOf(spec) as OperationDefinition;
    const call = {
      tool: operation.mcpTool,
      arguments: {},
      principal: JSON.parse(JSON.stringify(principal)),
      requestId: `req_every_bundle_${spec.name.replace(/-/g, '_')}`,
    };
    const { streamed } = await withFunction(spec, (lambda) => lambda.invokeStreaming(call));
    const outcome = JSON.parse(streamed.body.toString('utf8')) as {
      response: { status: number; body: Record<string, unknown> };
    };
    // No arguments: the tool's own validation answers (or a search without required input runs).
    expect([200, 400]).toContain(outcome.response.status);
    expect(outcome.response.body).toHaveProperty(outcome.response.status === 200 ? 'data' : 'error');
  }, 60_000);
});

describe.each(deployedFunctions().filter((spec) => spec.kind === 'batch-consumer'))('$name', (spec) => {
  it('answers an SQS event: a message naming no batch acknowledged, a malformed one failed', async () => {
    const record = (messageId: string, body: string) => ({
      messageId,
      receiptHandle: `handle-${messageId}`,
      body,
      eventSource: 'aws:sqs',
    });
    const { result } = await withFunction(spec, (lambda) =>
      lambda.invoke({
        Records: [
          record('no-such-batch', JSON.stringify({ batchId: 'bat_00000000000000000000', index: 0 })),
          record('malformed', 'not json'),
        ],
      }),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'malformed' }] });
  }, 60_000);
});

describe('the other functions', () => {
  const byKind = (kind: FunctionSpec['kind']) =>
    deployedFunctions().find((spec) => spec.kind === kind) as FunctionSpec;

  it('/mcp answers initialize', async () => {
    const { status, body } = await rest(byKind('mcp'), {
      path: '/mcp',
      ...mcpInitialize('every-bundle', withKey()),
    });
    expect(status).toBe(200);
    expect(body.result.capabilities).toHaveProperty('tools');
  }, 60_000);

  it('pages answers /healthz', async () => {
    const { status, body } = await rest(byKind('pages'), { method: 'GET', path: '/healthz' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok' });
  }, 60_000);

  it('console answers its sign-in page, and pages serves the script that page names', async () => {
    const signIn = await withFunction(byKind('console'), (lambda) =>
      restRequest(lambda, { method: 'GET', path: '/console/sign-in' }),
    );
    expect(signIn.status).toBe(200);
    expect(signIn.text).toContain('<form method="post" action="/console/sign-in"');
    const script = /<script src="(\/console\/assets\/[^"]+)"/.exec(signIn.text)?.[1] as string;
    const served = await withFunction(byKind('pages'), (lambda) =>
      restRequest(lambda, { method: 'GET', path: script }),
    );
    expect(served.status).toBe(200);
    expect(served.text.length).toBeGreaterThan(50_000);
  }, 60_000);

  it('oauth answers its metadata and registers a client; pages names it in the resource metadata', async () => {
    const [metadata, registered] = await withFunction(byKind('oauth'), async (lambda) => [
      await restRequest(lambda, { method: 'GET', path: '/.well-known/oauth-authorization-server' }),
      await restRequest(lambda, {
        method: 'POST',
        path: '/oauth/register',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:9/cb'],
          token_endpoint_auth_method: 'none',
          client_name: 'every bundle',
        }),
      }),
    ]);
    expect(metadata?.status, metadata?.text).toBe(200);
    const { issuer, token_endpoint, registration_endpoint } = JSON.parse(metadata?.text as string);
    expect(token_endpoint).toBe(`${issuer}/oauth/token`);
    expect(registration_endpoint).toBe(`${issuer}/oauth/register`);
    expect(registered?.status, registered?.text).toBe(201);
    expect(JSON.parse(registered?.text as string)).toMatchObject({
      client_id: expect.any(String),
      client_name: 'every bundle',
    });
    const resource = await withFunction(byKind('pages'), (lambda) =>
      restRequest(lambda, { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' }),
    );
    expect(resource.status).toBe(200);
    expect(JSON.parse(resource.text).authorization_servers).toEqual([issuer]);
  }, 60_000);

  it('reconcile answers a scheduled event', async () => {
    const { result: summary } = await withFunction(byKind('reconcile'), (lambda) =>
      lambda.invoke<{ settled: number }>({
        source: 'aws.events',
        'detail-type': 'Scheduled Event',
        detail: {},
      }),
    );
    expect(summary.settled).toEqual(expect.any(Number));
  }, 60_000);

  it("batches answers the caller's list of batches", async () => {
    const { status, body } = await rest(byKind('batches'), {
      method: 'GET',
      path: '/v1/batches',
      headers: withKey(),
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual([]);
  }, 60_000);

  it('covers every deployed function', () => {
    const kinds = new Set(deployedFunctions().map((spec) => spec.kind));
    expect([...kinds].sort()).toEqual([
      'batch-consumer',
      'batches',
      'console',
      'mcp',
      'oauth',
      'operation',
      'pages',
      'reconcile',
      'tool-group',
    ]);
  });
});
