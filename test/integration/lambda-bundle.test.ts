import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { generateApiKey } from '../../shared/auth/api-keys.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { createAllImplementations } from '../../shared/operations/index.js';
import { createService, type Service } from '../../shared/service.js';
import type { Store } from '../../shared/store/store.js';
import { builtFunctions } from '../support/built-functions.js';
import { type LambdaProcess, startLambda } from '../support/lambda-process.js';
import { type LambdaTable, openLambdaTable } from '../support/lambda-table.js';
import {
  type ClientRequest as EventRequest,
  restApiEvent as proxyEvent,
  streamedRestAnswer,
} from '../support/rest-api-event.js';

const PATH = '/v1/emails/disposable';
/** The function's directory: index.mjs and its chunks/. */
let bundle: string;

interface ClientRequest {
  method: string;
  /** In the order sent; a name may repeat. */
  query: [string, string][];
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

let lambdaTable: LambdaTable;
let store: Store;
let local: Service;
let lambda: LambdaProcess;
let apiKey: string;

beforeAll(async () => {
  bundle = join(await builtFunctions(), 'emails-disposable');

  lambdaTable = await openLambdaTable('lambda-test', 10);
  ({ store, apiKey } = lambdaTable);
  const { env } = lambdaTable;
  local = createService({
    config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
    store,
    implementations: createAllImplementations,
    operations: catalog,
    logger: createLogger('silent'),
  });
  // Its own process, as the Lambda runtime runs it: vitest's import() would transform the bundle and
  // hand it CommonJS globals a real ES module lacks, and its top-level await rules out require().
  lambda = await startLambda('emails-disposable', env);
}, 120_000);

afterAll(async () => {
  await lambda?.stop();
  await lambdaTable?.close();
});

/** The bundle's handler, in its process, as API Gateway's streamed proxy integration reads it. */
const handler = async (event: APIGatewayProxyEvent) =>
  streamedRestAnswer((await lambda.invokeStreaming(event)).streamed);

const restApiEvent = (request: ClientRequest) =>
  proxyEvent({ ...request, path: PATH } satisfies EventRequest);

async function viaLambda(request: ClientRequest): Promise<Answer> {
  const answer = await handler(restApiEvent(request));
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(answer.headers)) {
    expect(values).toHaveLength(1);
    headers[name] = String(values[0]);
  }
  return { status: answer.status, headers, body: JSON.parse(answer.text) };
}

async function viaLocalServer(request: ClientRequest): Promise<Answer> {
  const search = new URLSearchParams(request.query).toString();
  const response = await local.app.request(search ? `${PATH}?${search}` : PATH, {
    method: request.method,
    headers: request.headers,
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.json(),
  };
}

/** Headers whose value differs per request by design: only their shape is compared. */
const perRequestHeaders: Record<string, RegExp> = {
  date: /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  'x-request-id': /^req_[A-Za-z0-9_-]{20}$/,
  'x-ratelimit-remaining': /^\d+$/,
  'x-ratelimit-reset': /^\d+$/,
  ratelimit: /^"lookups";r=\d+;t=\d+$/,
};

/** The body with meta.requestId (a per-request value) checked against X-Request-Id and removed. */
function withoutRequestId(answer: Answer): unknown {
  const body = structuredClone(answer.body) as { meta?: { requestId?: string } };
  if (body.meta?.requestId !== undefined) {
    expect(body.meta.requestId).toBe(answer.headers['x-request-id']);
    delete body.meta.requestId;
  }
  return body;
}

/** Sends the request both ways and asserts the answers match; returns the Lambda's. */
async function expectSameAnswer(request: ClientRequest): Promise<Answer> {
  const lambda = await viaLambda(request);
  const server = await viaLocalServer(request);
  expect(lambda.status).toBe(server.status);
  expect(Object.keys(lambda.headers).sort()).toEqual(Object.keys(server.headers).sort());
  for (const [name, value] of Object.entries(lambda.headers)) {
    const shape = perRequestHeaders[name];
    if (shape) {
      expect(value, name).toMatch(shape);
      expect(server.headers[name], name).toMatch(shape);
    } else {
      expect(value, name).toBe(server.headers[name]);
    }
  }
  expect(withoutRequestId(lambda)).toEqual(withoutRequestId(server));
  return lambda;
}

const client = (overrides: Partial<ClientRequest> = {}): ClientRequest => ({
  method: 'GET',
  query: [['email', 'someone@mailinator.com']],
  ...overrides,
  headers: {
    Accept: 'application/json',
    'Accept-Encoding': 'gzip, deflate, br',
    'User-Agent': 'lookup-client/1.0',
    Authorization: `Bearer ${apiKey}`,
    ...overrides.headers,
  },
});

describe('the emails.disposable bundle behind API Gateway', () => {
  it('answers a disposable check with 200, the envelope and rate-limit headers', async () => {
    const answer = await expectSameAnswer(client());
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: { domain: 'mailinator.com', isDisposable: true },
      meta: { creditCost: 0 },
    });
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
  });

  it('answers an email without @ with 400 invalid_format', async () => {
    const answer = await expectSameAnswer(client({ query: [['email', 'no-at-sign']] }));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        code: 'invalid_request',
        details: [expect.objectContaining({ field: 'email', code: 'invalid_format' })],
      },
    });
  });

  it('answers a request without a key with 401 invalid_api_key', async () => {
    const request = client();
    delete request.headers.Authorization;
    const answer = await expectSameAnswer(request);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('throttles refused keys per API Gateway source IP, never per X-Forwarded-For', async () => {
    const from = (sourceIp: string, key: string) => {
      const event = restApiEvent(
        client({ headers: { Authorization: `Bearer ${key}`, 'X-Forwarded-For': `203.0.113.${key.length}` } }),
      );
      const { identity } = event.requestContext;
      return handler({
        ...event,
        requestContext: { ...event.requestContext, identity: { ...identity, sourceIp } },
      });
    };
    for (let attempt = 0; attempt < 20; attempt++)
      expect((await from('198.51.100.7', generateApiKey())).status, `attempt ${attempt + 1}`).toBe(401);
    const throttled = await from('198.51.100.7', generateApiKey());
    expect(throttled.status).toBe(429);
    expect(JSON.parse(throttled.text)).toMatchObject({
      error: { code: 'rate_limit_exceeded', retryable: true },
    });
    expect((await from('198.51.100.8', apiKey)).status).toBe(200);
  });

  it('answers a POST with 405 and Allow: GET', async () => {
    const answer = await expectSameAnswer(client({ method: 'POST' }));
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET');
    expect(answer.body).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('sees both values of a parameter repeated in multiValueQueryStringParameters', async () => {
    const answer = await expectSameAnswer(
      client({
        query: [
          ['email', 'a@b.com'],
          ['email', 'c@d.com'],
        ],
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: { details: [{ field: 'email', code: 'repeated_parameter' }] },
    });
  });

  it('answers a GET that carries a body with 415, in the error envelope', async () => {
    const event = { ...restApiEvent(client()), body: '{"email":"a@b.com"}' };
    const answer = await handler(event);
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('bundles no embedded DynamoDB, in index.mjs or a chunk', async () => {
    const code = (await readdir(bundle, { recursive: true })).filter((file) => file.endsWith('.mjs'));
    expect(code).toContain('index.mjs');
    expect(code.length).toBeGreaterThan(1);
    for (const file of code)
      expect(await readFile(join(bundle, file), 'utf8'), file).not.toContain('dynalite');
  });
});
