import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpTools } from '../../functions/lambda/mcp-tools.js';
import { buildPagesDocuments } from '../../functions/lambda/pages-documents.js';
import { catalog } from '../../schemas/catalog.js';
import {
  BUNDLED_MCP_TOOLS_FILE,
  BUNDLED_PAGES_DOCUMENTS_FILE,
  batchGroupMembers,
  batchQueueUrlVariable,
  deployedFunctions,
  toolGroupFunctionVariable,
  toolGroups,
} from '../../schemas/functions.js';
import { defaultToolNames, type OperationDefinition } from '../../schemas/operation-definition.js';
import { initInputs, initOutputs } from '../../scripts/bundle-start.js';
import { provisionAccount } from '../../shared/accounts/provisioning.js';
import { Authenticator } from '../../shared/auth/authenticator.js';
import { systemClock } from '../../shared/clock.js';
import { servedOpenApi } from '../../shared/http/documentation-pages.js';
import { createRepositories } from '../../shared/service.js';
import { datasetFixtures } from '../../shared/sources/dataset/fixtures.js';
import type { Store } from '../../shared/store/store.js';
import { builtFunctions, FUNCTIONS_DIR } from '../support/built-functions.js';
import { startInvokeEndpoint } from '../support/lambda-invoke-endpoint.js';
import { LambdaInitError, type LambdaProcess, restRequest, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import { ROOT } from '../support/process-group.js';
import { type SecretsManagerEndpoint, startSecretsManager } from '../support/secrets-manager-endpoint.js';

const USERNAME = datasetFixtures.richProfile.username;
let functionsDir: string;
let lambdaTable: LambdaTable;
let store: Store;
let apiKey: string;
let env: Record<string, string>;
const started: LambdaProcess[] = [];
/** What stops the loopback endpoints the tests started. */
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  functionsDir = await builtFunctions();
  lambdaTable = await openLambdaTable('functions-test', 100);
  ({ store, apiKey } = lambdaTable);
  // The reconcile function sweeps batches: it needs every queue's URL (sent to only for stalled batches).
  const queueUrls = [...batchGroupMembers().keys()].map((group) => [
    batchQueueUrlVariable(group),
    `http://127.0.0.1:9/queue/batch-${group}`,
  ]);
  env = { ...lambdaTable.env, ...Object.fromEntries(queueUrls) };
}, 300_000);

afterAll(async () => {
  await Promise.all(started.map((lambda) => lambda.stop()));
  await Promise.all(closers.map((close) => close()));
  await lambdaTable?.close();
});

async function start(
  name: string,
  extra: (taskRoot: string) => Record<string, string> = () => ({}),
): Promise<LambdaProcess> {
  const lambda = await startLambda(name, (taskRoot) => ({ ...env, ...extra(taskRoot) }));
  started.push(lambda);
  return lambda;
}

/** A data function's env as infra sets it: the bundled database in its (read-only) task root. */
const withDataset = (taskRoot: string) => ({ DATASET: join(taskRoot, 'dataset.sqlite') });

/** The metric records (CloudWatch Embedded Metric Format) a function wrote on stdout. */
function metricsOf(lambda: LambdaProcess) {
  return lambda
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"CloudWatchMetrics"'))
    .map((line) => {
      const record = JSON.parse(line);
      const [directive] = record._aws.CloudWatchMetrics;
      const [metric] = directive.Metrics;
      const dimensions = Object.fromEntries(
        (directive.Dimensions[0] as string[]).map((name) => [name, record[name]]),
      );
      return { namespace: directive.Namespace, name: metric.Name, value: record[metric.Name], dimensions };
    });
}

const request = restRequest;

const authorized = (headers: Record<string, string> = {}) => ({
  Authorization: `Bearer ${apiKey}`,
  ...headers,
});

describe('an operation function', () => {
  let lambda: LambdaProcess;
  beforeAll(async () => {
    lambda = await start('profiles-details', withDataset);
  }, 120_000);

  it('answers its v1 path from the bundled dataset', async () => {
    const answer = await request(lambda, {
      method: 'GET',
      path: '/v1/profiles/details/by-username',
      query: [['username', USERNAME]],
      headers: authorized(),
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).data).toMatchObject({ username: USERNAME });
  });

  it('answers its /api/v2 path with the v2 envelope', async () => {
    const answer = await request(lambda, {
      method: 'GET',
      path: `/api/v2/profiles/${USERNAME}`,
      headers: { 'X-API-Key': apiKey },
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(USERNAME);
    expect(JSON.stringify(JSON.parse(answer.text).data)).toContain(USERNAME);
  });

  it('counts requests, errors and credits in CloudWatch Embedded Metric Format', async () => {
    const price = catalog.find((operation) => operation.id === 'profiles.details')?.price;
    const before = metricsOf(lambda).length;
    await request(lambda, {
      method: 'GET',
      path: '/v1/profiles/details/by-username',
      query: [['username', 'nobody-has-this-name']],
      headers: authorized(),
    });
    const operation = { Operation: 'profiles.details' };
    expect(metricsOf(lambda).slice(before)).toEqual([
      {
        namespace: 'LookupService',
        name: 'Requests',
        value: 1,
        dimensions: { ...operation, Transport: 'rest' },
      },
      {
        namespace: 'LookupService',
        name: 'Errors',
        value: 1,
        dimensions: { ...operation, Code: 'resource_not_found' },
      },
      {
        namespace: 'LookupService',
        name: 'CreditsRefunded',
        value: price,
        dimensions: { ...operation, Reason: 'resource_not_found' },
      },
    ]);
    expect(metricsOf(lambda)).toContainEqual({
      namespace: 'LookupService',
      name: 'CreditsCharged',
      value: price,
      dimensions: operation,
    });
  });

  it('answers another method with 405 itself', async () => {
    const answer = await request(lambda, {
      method: 'DELETE',
      path: '/v1/profiles/details/by-username',
      headers: authorized(),
    });
    expect(answer.status).toBe(405);
  });
});

describe('a data function on Lambda without DATASET', () => {
  it('fails its init naming DATASET and writes nothing into its task root', async () => {
    const failure = await startLambda('companies-details', env).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LambdaInitError);
    expect(String(failure)).toMatch(/DATASET: is required on AWS Lambda/);
  });
});

describe('secrets by ARN', () => {
  const arn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`;
  const first = arn('cursor-one');
  const second = arn('cursor-two');
  let secretsManager: SecretsManagerEndpoint;
  beforeAll(async () => {
    secretsManager = await startSecretsManager(
      new Map([
        [first, 'a'.repeat(48)],
        [second, 'b'.repeat(48)],
      ]),
    );
  });
  afterAll(() => secretsManager?.close());

  const withCursorSecret = (secretArn: string) => (taskRoot: string) => ({
    ...withDataset(taskRoot),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
    CURSOR_SECRET_SECRET_ARN: secretArn,
  });
  const postsPage = (lambda: LambdaProcess, cursor?: string) =>
    request(lambda, {
      method: 'GET',
      path: '/v1/profiles/posts',
      query: [['username', USERNAME], ...(cursor ? ([['cursor', cursor]] as [string, string][]) : [])],
      headers: authorized(),
    });

  it('signs cursors with the secret its ARN names, fetched at init', async () => {
    const issuer = await start('profiles-posts', withCursorSecret(first));
    expect(secretsManager.requested).toContain(first);
    const cursor = JSON.parse((await postsPage(issuer)).text).meta.paging.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    // Another cold start on the same secret accepts the cursor; one on another secret refuses it,
    // so the value came from Secrets Manager (the store's fallback secret is shared by both).
    const [sameSecret, otherSecret] = await Promise.all([
      start('profiles-posts', withCursorSecret(first)),
      start('profiles-posts', withCursorSecret(second)),
    ]);
    expect((await postsPage(sameSecret, cursor)).status).toBe(200);
    const refused = await postsPage(otherSecret, cursor);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).error.details[0]).toMatchObject({
      field: 'cursor',
      code: 'invalid_value',
    });
  }, 60_000);

  it('fails its init naming the variable when the secret cannot be read', async () => {
    const failure = await startLambda('profiles-posts', (taskRoot) => ({
      ...env,
      ...withCursorSecret(arn('missing'))(taskRoot),
    })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LambdaInitError);
    expect(String(failure)).toMatch(/CURSOR_SECRET_SECRET_ARN: cannot read arn:aws:secretsmanager:.*missing/);
  });
});

describe('the pages function', () => {
  let lambda: LambdaProcess;
  beforeAll(async () => {
    lambda = await start('pages', () => ({ OAUTH_ISSUER: 'https://issuer.example.com' }));
  }, 60_000);

  it('serves the OpenAPI document with every v1 and v2 path', async () => {
    const answer = await request(lambda, { method: 'GET', path: '/openapi.json' });
    expect(answer.status).toBe(200);
    const paths = Object.keys(JSON.parse(answer.text).paths);
    expect(paths).toContain('/v1/profiles/details/by-username');
    expect(paths).toContain('/v1/websites/content');
    expect(paths.some((path) => path.startsWith('/api/v2/'))).toBe(true);
  });

  it('serves the document made at build time: the one the catalog gives at its prices, naming its server', async () => {
    const answer = JSON.parse((await request(lambda, { method: 'GET', path: '/openapi.json' })).text);
    const { servers, ...document } = answer;
    expect(servers).toEqual([{ url: expect.stringMatching(/^https?:\/\//) }]);
    expect(document).toEqual(JSON.parse(servedOpenApi(buildPagesDocuments({}).openapi, undefined)));
  });

  it('serves what its bundle carries, unless PRICE_OVERRIDES changes a price: then the catalog', async () => {
    // A copy of the bundle whose carried document says so: what is served shows where it came from.
    const copy = await mkdtemp(join(tmpdir(), 'pages-carried-'));
    await cp(join(FUNCTIONS_DIR, 'pages'), copy, { recursive: true });
    const carriedFile = join(copy, BUNDLED_PAGES_DOCUMENTS_FILE);
    const carried = JSON.parse(await readFile(carriedFile, 'utf8'));
    const head = JSON.parse(`${carried.openapi.beforeServers}}`);
    head.info.title = 'carried';
    carried.openapi.beforeServers = JSON.stringify(head).slice(0, -1);
    await writeFile(carriedFile, JSON.stringify(carried));
    const startCopy = async (extra: Record<string, string>) => {
      const copyLambda = await startLambda('pages', { ...env, ...extra }, copy);
      started.push(copyLambda);
      return copyLambda;
    };
    const document = async (copyLambda: LambdaProcess) =>
      JSON.parse((await request(copyLambda, { method: 'GET', path: '/openapi.json' })).text);
    const catalogPrice = { 'profiles.details': 2 };
    expect(
      (await document(await startCopy({ PRICE_OVERRIDES: JSON.stringify(catalogPrice) }))).info.title,
    ).toBe('carried');

    const overrides = { 'profiles.details': 7 };
    const repriced = await startCopy({ PRICE_OVERRIDES: JSON.stringify(overrides) });
    const { servers: _, ...made } = await document(repriced);
    const expected = buildPagesDocuments(overrides);
    expect(made).toEqual(JSON.parse(servedOpenApi(expected.openapi, undefined)));
    expect(made.paths['/v1/profiles/details/by-username'].get.description).toContain('Price: 7 credits.');
    const card = JSON.parse(
      (await request(repriced, { method: 'GET', path: '/.well-known/mcp/server-card.json' })).text,
    );
    expect(card._meta['lookup-service.invalid/tools']).toEqual(
      JSON.parse(JSON.stringify(expected.card.listed)),
    );
    expect(
      card._meta['lookup-service.invalid/tools'].find(
        (tool: { name: string }) => tool.name === 'get_profile_details',
      ).description,
    ).toContain('Costs 7 credits');
    await rm(copy, { recursive: true, force: true });
  });

  it('serves /docs and its assets from the bundle directory', async () => {
    expect((await request(lambda, { method: 'GET', path: '/docs' })).status).toBe(200);
    const asset = await request(lambda, { method: 'GET', path: '/docs/assets/swagger-ui.css' });
    expect(asset.status).toBe(200);
    expect(asset.text.length).toBeGreaterThan(1000);
  });

  it('serves the protected resource metadata, /healthz and a JSON not-found', async () => {
    const metadata = await request(lambda, {
      method: 'GET',
      path: '/.well-known/oauth-protected-resource/mcp',
    });
    expect(JSON.parse(metadata.text)).toMatchObject({
      authorization_servers: ['https://issuer.example.com'],
    });
    expect(JSON.parse((await request(lambda, { method: 'GET', path: '/healthz' })).text)).toMatchObject({
      status: 'ok',
    });
    const missing = await request(lambda, { method: 'GET', path: '/v9/nothing' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: { code: 'resource_not_found' } });
  });

  it('serves the MCP server card, listing the tools the /mcp function serves', async () => {
    const answer = await request(lambda, { method: 'GET', path: '/.well-known/mcp/server-card.json' });
    expect(answer.status).toBe(200);
    const card = JSON.parse(answer.text);
    expect(card._meta['lookup-service.invalid/tools'].map((tool: { name: string }) => tool.name)).toEqual(
      defaultToolNames(catalog),
    );
    expect(card._meta['lookup-service.invalid/authentication'].oauth2.authorizationServers).toEqual([
      'https://issuer.example.com',
    ]);
  });

  it('serves no server card when GATEWAY_MCP_ENABLED=false', async () => {
    const switchedOff = await start('pages', () => ({ GATEWAY_MCP_ENABLED: 'false' }));
    const answer = await request(switchedOff, { method: 'GET', path: '/.well-known/mcp/server-card.json' });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'resource_not_found' } });
  });
});

describe('the reconcile function', () => {
  it('answers a scheduled event with its summary', async () => {
    // A debit a crashed function left ten minutes ago, on an account of its own (an account's
    // current rate window would date a new debit no earlier than the window's start).
    const tenMinutesAgo = { now: () => Date.now() - 10 * 60_000 };
    const { account } = await provisionAccount(createRepositories(store, tenMinutesAgo), {
      name: 'left in flight',
      credits: 10,
      rateLimit: { limit: 1000, windowSeconds: 60 },
    });
    const admission = await createRepositories(store, tenMinutesAgo).ledger.admit({
      accountId: account.accountId,
      requestId: 'req_left_by_a_crashed_function',
      operation: 'profiles.details',
      cost: 1,
      rateLimit: account.rateLimit,
    });
    expect(admission.outcome).toBe('admitted');
    const lambda = await start('reconcile');
    const { result } = await lambda.invoke({
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      detail: {},
    });
    expect(result).toMatchObject({ settled: 1, requestIds: ['req_left_by_a_crashed_function'] });
    expect((result as { olderThanSeconds: number }).olderThanSeconds).toBeGreaterThan(40);
    expect(metricsOf(lambda)).toEqual([
      { namespace: 'LookupService', name: 'ReconcileSettled', value: 1, dimensions: {} },
    ]);
  });
});

describe('the batches function', () => {
  it('checks email find items as the single call would, loading the name spelling at the first', async () => {
    const lambda = await start('batches');
    const items = [
      { firstName: 'Иван', lastName: 'Петров', domain: 'example.com' },
      { firstName: 'ꓮꓲ', lastName: 'Petrov', domain: 'example.com' },
    ];
    const answer = await request(lambda, {
      method: 'POST',
      path: '/v1/batches',
      query: [['operation', 'emails.find']],
      headers: authorized({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(items),
    });
    expect(answer.status).toBe(400);
    const { error } = JSON.parse(answer.text) as { error: { message: string; details: { field: string }[] } };
    expect(error.message).toContain('1 of 2 items are invalid');
    expect(error.details.map((detail) => detail.field)).toEqual(['items[1].firstName']);
  });
});

describe('/mcp and the tool-group functions', () => {
  let group: LambdaProcess;
  let mcp: LambdaProcess;
  /** Each tool group's function name, as infra gives them to /mcp. */
  const groupFunctions = Object.fromEntries(
    [...toolGroups().keys()].map((name) => [toolGroupFunctionVariable(name), `lookup-mcp-group-${name}`]),
  );
  beforeAll(async () => {
    group = await start('mcp-group-profiles', withDataset);
    // An opt-in toolset's group (emails: its free tool needs no mail server).
    const emails = await start('mcp-group-emails-disposable');
    const endpoint = await startInvokeEndpoint(
      new Map([
        ['lookup-mcp-group-profiles', group],
        ['lookup-mcp-group-emails-disposable', emails],
      ]),
    );
    closers.push(endpoint.close);
    // The companies group "crashes": the endpoint answers it with an InvokeComplete ErrorCode.
    mcp = await start('mcp', () => ({ ...groupFunctions, AWS_ENDPOINT_URL_LAMBDA: endpoint.url }));
  }, 120_000);

  it('a tool-group function answers a ToolCall with its ToolOutcome', async () => {
    const authenticator = new Authenticator(
      createRepositories(store).keys,
      createRepositories(store).accounts,
      systemClock,
      0,
    );
    const principal = await authenticator.authenticateBearer(`Bearer ${apiKey}`);
    const call = {
      tool: toolOf('profiles.details'),
      arguments: { username: USERNAME },
      principal,
      requestId: 'req_tool_group_call_0001',
    };
    const { streamed } = await group.invokeStreaming(JSON.parse(JSON.stringify(call)));
    expect(streamed.contentType).toBe('application/json');
    const result = JSON.parse(streamed.body.toString('utf8')) as {
      response: { status: number; body: { data: unknown } };
      creditCost: number;
    };
    expect(result.response.status).toBe(200);
    expect(result.response.body.data).toMatchObject({ username: USERNAME });
    expect(result.creditCost).toBeGreaterThan(0);
  });

  const mcpMessage = (
    lambda: LambdaProcess,
    method: string,
    params: Record<string, unknown>,
    query: [string, string][] = [],
  ) =>
    request(lambda, {
      method: 'POST',
      path: '/mcp',
      query,
      headers: authorized({
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-06-18',
      }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const mcpCall = (name: string, args: Record<string, unknown>, query: [string, string][] = []) =>
    mcpMessage(mcp, 'tools/call', { name, arguments: args }, query);
  const listedTools = async (lambda: LambdaProcess) => {
    const answer = await mcpMessage(lambda, 'tools/list', {});
    expect(answer.status).toBe(200);
    return JSON.parse(answer.text).result.tools as { name: string; title: string; description: string }[];
  };
  /** What tools/list shows by default, from what the catalog makes at the given prices. */
  const defaultListing = (overrides: Record<string, number>) =>
    JSON.parse(
      JSON.stringify(
        buildMcpTools(overrides)
          .tools.filter((entry) => entry.operation.definition.mcpListing !== 'on-request')
          .map((entry) => entry.tool),
      ),
    );

  it('/mcp lists the tools its build wrote down: those the catalog makes at its prices', async () => {
    expect(await listedTools(mcp)).toEqual(defaultListing({}));
  });

  it('/mcp serves the tools its bundle carries, unless PRICE_OVERRIDES changes a price: then the catalog', async () => {
    // A copy of the bundle whose carried tools say so: what is listed shows where it came from.
    const copy = await mkdtemp(join(tmpdir(), 'mcp-carried-'));
    await cp(join(FUNCTIONS_DIR, 'mcp'), copy, { recursive: true });
    const carriedFile = join(copy, BUNDLED_MCP_TOOLS_FILE);
    const carried = JSON.parse(await readFile(carriedFile, 'utf8'));
    carried.tools[0].tool.title = 'carried';
    await writeFile(carriedFile, JSON.stringify(carried));
    const startCopy = async (overrides: Record<string, number>) => {
      const copyLambda = await startLambda(
        'mcp',
        { ...env, ...groupFunctions, PRICE_OVERRIDES: JSON.stringify(overrides) },
        copy,
      );
      started.push(copyLambda);
      return copyLambda;
    };
    const catalogPrice = { 'profiles.details': 2 };
    expect((await listedTools(await startCopy(catalogPrice)))[0]?.title).toBe('carried');

    const overrides = { 'profiles.details': 7 };
    const repriced = await listedTools(await startCopy(overrides));
    expect(repriced).toEqual(defaultListing(overrides));
    expect(repriced.find((tool) => tool.name === 'get_profile_details')?.description).toContain(
      'Costs 7 credits',
    );
    await rm(copy, { recursive: true, force: true });
  });

  it('/mcp runs a tools/call in the group function through Lambda invoke', async () => {
    const answer = await mcpCall(toolOf('profiles.details'), { username: USERNAME });
    expect(answer.status).toBe(200);
    const { result } = JSON.parse(answer.text);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.data).toMatchObject({ username: USERNAME });
  });

  it('/mcp runs a tool of an opt-in toolset (?toolsets=emails) in its group function', async () => {
    const answer = await mcpCall('check_disposable_email', { email: 'someone@mailinator.com' }, [
      ['toolsets', 'emails'],
    ]);
    expect(answer.status).toBe(200);
    const { result } = JSON.parse(answer.text);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      data: { domain: 'mailinator.com', isDisposable: true },
      meta: { creditCost: 0 },
    });
  });

  it('/mcp answers a failed group function with the tool error internal_error, not a crash', async () => {
    const answer = await mcpCall(toolOf('companies.details'), { slug: datasetFixtures.richCompany.slug });
    expect(answer.status).toBe(200);
    const { result } = JSON.parse(answer.text);
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error.code).toBe('internal_error');
  });
});

function toolOf(operation: string): string {
  const tool = (catalog as readonly OperationDefinition[]).find(
    (definition) => definition.id === operation,
  )?.mcpTool;
  if (!tool) throw new Error(`${operation} has no tool`);
  return tool;
}

describe('the bundles', () => {
  it('run zod without its JIT: the banner opening every file sets the global zod reads its settings from', async () => {
    const index = await readFile(join(functionsDir, 'profiles-details', 'index.mjs'), 'utf8');
    const banner = index.slice(0, index.indexOf('\n'));
    const probe = `${banner}\nconst { z } = await import('zod');\nprocess.stdout.write(String(z.config().jitless));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT });
    expect(output.toString()).toBe('true');
  });

  it('carry only the parts of zod their code uses: zod is imported as a namespace, never as `{ z }`', async () => {
    // All of zod's classic API is 201 KiB of a bundle; imported as a namespace, 106–110 KiB. A `{ z }`
    // import anywhere, ours (biome.json refuses it) or a dependency's, would bring all of it back.
    for (const spec of deployedFunctions()) {
      const metafile: Metafile = JSON.parse(
        await readFile(join(functionsDir, spec.name, 'metafile.json'), 'utf8'),
      );
      const zodBytes = Object.values(metafile.outputs)
        .flatMap((output) => Object.entries(output.inputs))
        .filter(([input]) => input.includes('node_modules/zod/'))
        .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
      expect(zodBytes, spec.name).toBeGreaterThan(0);
      expect(zodBytes, spec.name).toBeLessThan(150 * 1024);
    }
  });

  it('load no operation’s schemas at start in pages and /mcp: they serve what their build wrote down from the catalog', async () => {
    const served = deployedFunctions().filter((spec) => spec.kind === 'pages' || spec.kind === 'mcp');
    expect(served.map((spec) => spec.kind).sort()).toEqual(['mcp', 'pages']);
    for (const spec of served) {
      const metafile = JSON.parse(await readFile(join(functionsDir, spec.name, 'metafile.json'), 'utf8'));
      const atStart = initInputs(metafile, relative(ROOT, join(functionsDir, spec.name, 'index.mjs')));
      expect(
        atStart.filter((input) => /^schemas\/(catalog\.ts|operations\/)/.test(input)),
        spec.name,
      ).toEqual([]);
    }
  });

  it('import node:http at start only in the authorization server: its ESM namespace loads Node’s fetch implementation', async () => {
    // shared/net/node-http.ts takes the module object instead; oidc-provider's Koa imports it itself.
    for (const spec of deployedFunctions()) {
      const metafile: Metafile = JSON.parse(
        await readFile(join(functionsDir, spec.name, 'metafile.json'), 'utf8'),
      );
      const importsHttp = initOutputs(
        metafile,
        relative(ROOT, join(functionsDir, spec.name, 'index.mjs')),
      ).some((output) =>
        metafile.outputs[output]?.imports.some(
          (imported) =>
            imported.external && imported.path === 'node:http' && imported.kind === 'import-statement',
        ),
      );
      expect(importsHttp, spec.name).toBe(spec.kind === 'oauth');
    }
  });

  it('carry Chromium and Puppeteer in the website functions only, loaded at a first launch, neither Ajv nor zod’s other locales, and load neither the OpenAPI generator nor WebAuthn’s at start', async () => {
    const browserPackage = /node_modules\/(@sparticuz\/chromium|puppeteer-core|puppeteer)\//;
    for (const spec of deployedFunctions()) {
      const metafile = JSON.parse(await readFile(join(functionsDir, spec.name, 'metafile.json'), 'utf8'));
      const atStart = initInputs(metafile, relative(ROOT, join(functionsDir, spec.name, 'index.mjs')));
      const browserInputs = Object.keys(metafile.inputs).filter((input) => browserPackage.test(input));
      expect(browserInputs.length > 0, spec.name).toBe(spec.browser);
      // shared/websites/chromium-launch.ts is imported when a page first needs the browser.
      expect(
        atStart.filter((input) => browserPackage.test(input)),
        spec.name,
      ).toEqual([]);
      // zod's locales are English alone (scripts/lambda-bundle-options.ts swaps the table).
      const locales = Object.keys(metafile.inputs).filter((input) =>
        input.includes('node_modules/zod/v4/locales/'),
      );
      expect(locales, spec.name).toEqual(['node_modules/zod/v4/locales/en.js']);
      // Nor Ajv: the MCP SDK's default validator is the one without it (functions/lambda/mcp-sdk-shims.ts).
      const ajv = Object.keys(metafile.inputs).filter((input) => /\/ajv(?:Provider-[^/]+|\/)/.test(input));
      expect(ajv, spec.name).toEqual([]);
      // Nor, at start, the OpenAPI generator: pages imports it only to document overridden prices.
      const generatorAtStart = atStart.filter((input) =>
        input.includes('node_modules/@asteasolutions/zod-to-openapi/'),
      );
      expect(generatorAtStart, spec.name).toEqual([]);
      // Nor the WebAuthn server library: the console imports it at its first passkey ceremony.
      const webAuthnAtStart = atStart.filter((input) =>
        input.includes('node_modules/@simplewebauthn/server/'),
      );
      expect(webAuthnAtStart, spec.name).toEqual([]);
      // Pages reads the store for /healthz alone, and loads the DynamoDB client there.
      const storeClientAtStart = atStart.includes('shared/store/dynamodb/dynamo-client.ts');
      expect(storeClientAtStart, spec.name).toBe(spec.kind !== 'pages');
      // That client is the store's own (dynamo-client.ts), /mcp invokes its tool groups with its own
      // (lambda-streaming-invoker.ts) and the batch functions send to SQS with theirs (sqs-client.ts):
      // no bundle carries the AWS SDK's DynamoDB, Lambda or SQS clients.
      const sdkClients = Object.keys(metafile.inputs).filter((input) =>
        /node_modules\/@aws-sdk\/(client-dynamodb|lib-dynamodb|client-lambda|client-sqs)\//.test(input),
      );
      expect(sdkClients, spec.name).toEqual([]);
      // The API lane answers an operation function's GETs (rest-adapter.ts): only those carry it.
      expect(Object.keys(metafile.inputs).includes('shared/http/api-lane.ts'), spec.name).toBe(
        spec.kind === 'operation',
      );
      // Nor does any function load the SDK's runtime at start (the S3 and Secrets Manager clients
      // that carry it load on the paths that need them).
      const sdkRuntimeAtStart = atStart.some((input) => input.includes('node_modules/@smithy/core/'));
      expect(sdkRuntimeAtStart, spec.name).toBe(false);
      // The CSV parser loads with the first CSV batch body a function reads, the transliteration
      // tables with the first email find it checks or runs.
      const csvParserAtStart = atStart.some((input) => input.includes('node_modules/csv-parse/'));
      expect(csvParserAtStart, spec.name).toBe(false);
      const transliterationAtStart = atStart.some((input) => input.includes('node_modules/transliteration/'));
      expect(transliterationAtStart, spec.name).toBe(false);
      // jose (OAuth tokens) loads at the first token a function checks, but in the authorization server's.
      const joseAtStart = atStart.some((input) => input.includes('node_modules/jose/'));
      expect(joseAtStart, spec.name).toBe(spec.kind === 'oauth');
      const files = await readdir(join(functionsDir, spec.name));
      expect(files.includes('chromium'), spec.name).toBe(spec.browser);
      expect(files.includes('dataset.sqlite'), spec.name).toBe(spec.dataset);
    }
  });

  it.each([
    // function, the SMTP dialogue and its SOCKS client, find's transliteration tables
    ['emails-disposable', false, false],
    ['mcp-group-emails-disposable', false, false],
    ['batch-emails-disposable', false, false],
    ['emails-verify', true, false],
    ['emails-find', true, true],
    ['mcp-group-emails-smtp', true, true],
    ['batch-emails-smtp', true, true],
    // They check batch items' inputs, find's name among them, and run none.
    ['batches', false, true],
    ['reconcile', false, true],
  ])(
    '%s carries the SMTP dialogue: %s, the transliteration tables: %s',
    async (name, smtp, transliteration) => {
      const inputs = Object.keys(
        JSON.parse(await readFile(join(functionsDir, name, 'metafile.json'), 'utf8')).inputs,
      );
      const carries = (pattern: RegExp) => inputs.some((input) => pattern.test(input));
      expect(carries(/^shared\/emails\/smtp-session\.ts$/)).toBe(smtp);
      expect(carries(/node_modules\/socks\//)).toBe(smtp);
      expect(carries(/node_modules\/transliteration\//)).toBe(transliteration);
    },
  );

  it('carry neither in any other function', async () => {
    const emailFunctions = /^(emails-|mcp-group-emails-|batch-emails-|batches$|reconcile$)/;
    const others = deployedFunctions().filter((spec) => !emailFunctions.test(spec.name));
    expect(others.length).toBeGreaterThan(60);
    for (const spec of others) {
      const metafile = JSON.parse(await readFile(join(functionsDir, spec.name, 'metafile.json'), 'utf8'));
      const carried = Object.keys(metafile.inputs).filter((input) =>
        /^shared\/emails\/smtp-|node_modules\/(socks|transliteration)\//.test(input),
      );
      expect(carried, spec.name).toEqual([]);
    }
  });
});
