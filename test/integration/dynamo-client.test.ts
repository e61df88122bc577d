/**
 * The store's DynamoDB client (shared/store/dynamodb/dynamo-client.ts) on the wire: its requests are
 * signed as SigV4 requires (test/support/sigv4-oracle.ts recomputes each signature from what arrived,
 * and the SDK's own client's request is the control), its values
 * round-trip through dynalite as the SDK's document client would store them, and it repeats what the
 * SDK's standard retry strategy repeats, no more.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackEndpoint, listenOnLoopback } from '../../local-aws/loopback.js';
import { AwsServiceError } from '../../shared/net/aws-http.js';
import { DynamoClient } from '../../shared/store/dynamodb/dynamo-client.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { type EmbeddedDynamo, startEmbeddedDynamo } from '../../shared/store/dynamodb/embedded-dynamodb.js';
import {
  createDynamoTable,
  ensureTable,
  isConditionFailure,
  tableStatus,
} from '../../shared/store/dynamodb/table.js';
import {
  type CapturedRequest,
  captureRequest,
  signatureHolds as checkSignature,
} from '../support/sigv4-oracle.js';

const REGION = 'eu-west-3';
const KEYS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

/** A loopback DynamoDB stand-in: records each request, answers the next scripted reply (200 `{}` when none is left). */
function scriptedServer() {
  const captured: CapturedRequest[] = [];
  const replies: { status: number; body: unknown }[] = [];
  const server = createServer(async (req, res) => {
    captured.push(await captureRequest(req));
    const reply = replies.shift() ?? { status: 200, body: {} };
    res
      .writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0' })
      .end(JSON.stringify(reply.body));
  });
  return { server, captured, replies };
}

/** The signature check of test/support/sigv4-oracle.ts, in DynamoDB's scope here. */
const signatureHolds = (request: CapturedRequest, credentials: Parameters<typeof checkSignature>[1]) =>
  checkSignature(request, credentials, { service: 'dynamodb', region: REGION });

describe('requests on the wire', () => {
  const scripted = scriptedServer();
  let endpoint: LoopbackEndpoint;
  beforeAll(async () => {
    endpoint = await listenOnLoopback(scripted.server);
  });
  afterAll(() => endpoint.close());
  afterEach(() => {
    scripted.captured.length = 0;
    scripted.replies.length = 0;
  });

  const clientOf = (
    credentials: ConstructorParameters<typeof DynamoClient>[0]['credentials'],
    maxAttempts = 1,
  ) => new DynamoClient({ region: REGION, endpoint: endpoint.url, credentials, maxAttempts });

  it('signs each call so that its signature recomputes from what arrived, and a changed body no longer does', async () => {
    const client = clientOf(KEYS);
    await client.get({ TableName: 'Table', Key: { pk: 'KEY#é ü', sk: 'KEY' }, ConsistentRead: true });
    const [sent] = scripted.captured;
    if (!sent) throw new Error('nothing arrived');
    expect(sent.method).toBe('POST');
    expect(sent.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(sent.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(String(sent.headers.authorization)).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\\d{8}/${REGION}/dynamodb/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(JSON.parse(sent.body)).toEqual({
      TableName: 'Table',
      Key: { pk: { S: 'KEY#é ü' }, sk: { S: 'KEY' } },
      ConsistentRead: true,
    });
    expect(await signatureHolds(sent, KEYS)).toBe(true);
    expect(await signatureHolds({ ...sent, body: sent.body.replace('KEY#', 'KEY!') }, KEYS)).toBe(false);
    expect(await signatureHolds(sent, { ...KEYS, secretAccessKey: 'another' })).toBe(false);
    client.destroy();
  });

  it('verifies the SDK client’s own request the same way (the control for the check above)', async () => {
    const sdk = new DynamoDBClient({
      region: REGION,
      endpoint: endpoint.url,
      credentials: KEYS,
      maxAttempts: 1,
    });
    await sdk.send(new GetItemCommand({ TableName: 'Table', Key: { pk: { S: 'KEY#x' }, sk: { S: 'KEY' } } }));
    const [sent] = scripted.captured;
    if (!sent) throw new Error('nothing arrived');
    expect(sent.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(await signatureHolds(sent, KEYS)).toBe(true);
    sdk.destroy();
  });

  it('signs as the environment’s keys, session token included, without loading the credential chain', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'ASIAENVIRONMENT',
      AWS_SECRET_ACCESS_KEY: 'environment-secret',
      AWS_SESSION_TOKEN: 'environment-token',
    });
    delete process.env.AWS_PROFILE;
    try {
      const client = clientOf('environment');
      await client.put({ TableName: 'Table', Item: { pk: 'a', sk: 'b' } });
      const [sent] = scripted.captured;
      if (!sent) throw new Error('nothing arrived');
      expect(String(sent.headers.authorization)).toContain('Credential=ASIAENVIRONMENT/');
      expect(sent.headers['x-amz-security-token']).toBe('environment-token');
      expect(
        await signatureHolds(sent, {
          accessKeyId: 'ASIAENVIRONMENT',
          secretAccessKey: 'environment-secret',
          sessionToken: 'environment-token',
        }),
      ).toBe(true);
      client.destroy();
    } finally {
      process.env = saved;
    }
  });

  it('signs as a named profile through the SDK’s credential chain when the environment names one', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dynamo-client-'));
    const saved = { ...process.env };
    try {
      await writeFile(
        join(folder, 'credentials'),
        '[operator]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profile-secret\n',
      );
      await writeFile(join(folder, 'config'), '');
      Object.assign(process.env, {
        AWS_PROFILE: 'operator',
        AWS_SHARED_CREDENTIALS_FILE: join(folder, 'credentials'),
        AWS_CONFIG_FILE: join(folder, 'config'),
        // A profile wins over keys in the environment, as in the SDK.
        AWS_ACCESS_KEY_ID: 'ASIAENVIRONMENT',
        AWS_SECRET_ACCESS_KEY: 'environment-secret',
      });
      const client = clientOf('environment');
      await client.delete({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } });
      const [sent] = scripted.captured;
      if (!sent) throw new Error('nothing arrived');
      expect(String(sent.headers.authorization)).toContain('Credential=AKIAPROFILE/');
      expect(
        await signatureHolds(sent, { accessKeyId: 'AKIAPROFILE', secretAccessKey: 'profile-secret' }),
      ).toBe(true);
      client.destroy();
    } finally {
      process.env = saved;
      await rm(folder, { recursive: true, force: true });
    }
  });

  // Each row: what the server answers first, whether the call is repeated, and what the caller sees.
  it.each([
    ['a 500', { status: 500, body: { __type: 'com.amazon.coral.service#InternalFailure' } }, true],
    ['a 503', { status: 503, body: {} }, true],
    [
      'throttling',
      {
        status: 400,
        body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow' },
      },
      true,
    ],
    [
      'a failed condition',
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
        },
      },
      false,
    ],
    [
      'a validation error',
      { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' } },
      false,
    ],
  ])('after %s, repeats the call: %s', async (_, first, repeated) => {
    scripted.replies.push(first, { status: 200, body: { Item: { pk: { S: 'a' }, n: { N: '7' } } } });
    const client = clientOf(KEYS, 2);
    const call = client.get({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } });
    if (repeated) {
      await expect(call).resolves.toEqual({ Item: { pk: 'a', n: 7 } });
      expect(scripted.captured).toHaveLength(2);
    } else {
      const error = await call.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AwsServiceError);
      const type = String((first.body as { __type: string }).__type);
      expect((error as AwsServiceError).name).toBe(type.slice(type.indexOf('#') + 1));
      expect((error as AwsServiceError).statusCode).toBe(first.status);
      expect(scripted.captured).toHaveLength(1);
    }
    client.destroy();
  });

  it('stops at its attempts: a 500 twice with two attempts is the caller’s error', async () => {
    scripted.replies.push({ status: 500, body: {} }, { status: 500, body: {} }, { status: 200, body: {} });
    const client = clientOf(KEYS, 2);
    const error = await client
      .get({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'Http500', statusCode: 500 });
    expect(scripted.captured).toHaveLength(2);
    client.destroy();
  });

  it('repeats a call whose connection was refused, then reports the connection’s error', async () => {
    const closed = await listenOnLoopback(createServer());
    const address = closed.url;
    await closed.close();
    const client = new DynamoClient({ region: REGION, endpoint: address, credentials: KEYS, maxAttempts: 2 });
    const started = performance.now();
    const error = await client
      .get({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } })
      .catch((caught: unknown) => caught);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    // One back-off (under 200 ms) between the two attempts.
    expect(performance.now() - started).toBeLessThan(5_000);
    client.destroy();
  });

  it('runs each middleware around each call, outermost first, and a middleware’s refusal sends nothing', async () => {
    const client = clientOf(KEYS);
    const seen: string[] = [];
    client.use(async (call, next) => {
      seen.push(`outer ${call.operation}`);
      return next();
    });
    client.use(async (call, next) => {
      seen.push(`inner ${call.operation}`);
      if (call.operation === 'DeleteItem') throw new Error('refused by the test');
      return next();
    });
    await client.update({
      TableName: 'Table',
      Key: { pk: 'a', sk: 'b' },
      UpdateExpression: 'SET x = :x',
      ExpressionAttributeValues: { ':x': 1 },
    });
    await expect(client.delete({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } })).rejects.toThrow(
      'refused by the test',
    );
    expect(seen).toEqual(['outer UpdateItem', 'inner UpdateItem', 'outer DeleteItem', 'inner DeleteItem']);
    expect(scripted.captured.map((request) => request.headers['x-amz-target'])).toEqual([
      'DynamoDB_20120810.UpdateItem',
    ]);
    client.destroy();
  });
});

describe('a call that gets no answer', () => {
  // Takes each request and never answers it.
  const requests: string[] = [];
  const silent = createServer((req) => {
    requests.push(String(req.headers['x-amz-target']));
  });
  let endpoint: LoopbackEndpoint;
  beforeAll(async () => {
    endpoint = await listenOnLoopback(silent);
  });
  afterAll(() => endpoint.close());
  afterEach(() => {
    requests.length = 0;
  });

  it('is given up when its signal aborts, and not repeated', async () => {
    const client = new DynamoClient({
      region: REGION,
      endpoint: endpoint.url,
      credentials: KEYS,
      maxAttempts: 2,
    });
    const error = await client
      .get({ TableName: 'Table', Key: { pk: 'a', sk: 'b' } }, { signal: AbortSignal.timeout(200) })
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    expect(requests).toEqual(['DynamoDB_20120810.GetItem']);
    client.destroy();
  });

  it('bounds the store’s probe (/healthz, the CLI asking a recorded server) at two seconds', async () => {
    const store = createDynamoStore(
      createDynamoTable({ endpoint: endpoint.url, region: REGION, table: 't' }),
    );
    const started = performance.now();
    await expect(store.ping()).rejects.toThrow();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(10_000);
    expect(requests).toEqual(['DynamoDB_20120810.UpdateItem']);
    await store.close();
  });
});

describe('values through dynalite', () => {
  let dynamo: EmbeddedDynamo;
  let table: ReturnType<typeof createDynamoTable>;
  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    table = createDynamoTable({ endpoint: dynamo.endpoint, region: REGION, table: 'values' });
    expect(await tableStatus(table)).toBeUndefined();
    await ensureTable(table);
    expect(await tableStatus(table)).toBe('ACTIVE');
  });
  afterAll(async () => {
    table.client.destroy();
    await dynamo.close();
  });

  it('stores and reads back what the SDK’s document client would: maps, lists, numbers, null, booleans; undefined left out', async () => {
    const item = {
      pk: 'VALUES#1',
      sk: 'ITEM',
      name: 'Zoë',
      count: 42,
      ratio: 0.125,
      big: 2 ** 52,
      flag: false,
      nothing: null,
      list: ['a', 1, { nested: true }],
      map: { inner: { deeper: 'yes' }, empty: {} },
      gone: undefined,
    };
    await table.client.put({ TableName: table.table, Item: item });
    const { Item } = await table.client.get({
      TableName: table.table,
      Key: { pk: 'VALUES#1', sk: 'ITEM' },
      ConsistentRead: true,
    });
    const { gone: _, ...stored } = item;
    expect(Item).toEqual(stored);
    expect(Item).not.toHaveProperty('gone');
  });

  it('answers a failed condition as ConditionalCheckFailedException, and a missing table as ResourceNotFoundException', async () => {
    const put = () =>
      table.client.put({
        TableName: table.table,
        Item: { pk: 'VALUES#2', sk: 'ITEM' },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    await put();
    const refused = await put().catch((caught: unknown) => caught);
    expect(isConditionFailure(refused)).toBe(true);
    const missing = await table.client
      .get({ TableName: 'no-such-table', Key: { pk: 'a', sk: 'b' } })
      .catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ name: 'ResourceNotFoundException', statusCode: 400 });
  });

  it('updates with returned attributes, pages a query from where it ended, and writes and deletes in batches', async () => {
    const { Attributes } = await table.client.update({
      TableName: table.table,
      Key: { pk: 'VALUES#3', sk: 'COUNTER' },
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    });
    expect(Attributes).toEqual({ pk: 'VALUES#3', sk: 'COUNTER', n: 1 });
    const rows = Array.from({ length: 5 }, (_, index) => ({ pk: 'VALUES#4', sk: `ROW#${index}`, index }));
    await table.client.batchWrite({
      RequestItems: { [table.table]: rows.map((Item) => ({ PutRequest: { Item } })) },
    });
    const seen: unknown[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await table.client.query({
        TableName: table.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'VALUES#4' },
        Limit: 2,
        ExclusiveStartKey: startKey,
      });
      seen.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(seen).toEqual(rows);
    await table.client.batchWrite({
      RequestItems: { [table.table]: rows.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })) },
    });
    const { Items } = await table.client.query({
      TableName: table.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'VALUES#4' },
    });
    expect(Items).toEqual([]);
  });
});
