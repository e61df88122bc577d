/**
 * The one DynamoDB client and the table it talks to, shared by every repository of the DynamoDB
 * adapter.
 */
import type { Credentials } from '../../net/aws-http.js';
import { DynamoClient } from './dynamo-client.js';

export interface DynamoTable {
  client: DynamoClient;
  table: string;
}

export interface DynamoTableOptions {
  table: string;
  region: string;
  /** Unset on AWS: the region's own endpoint. */
  endpoint?: string;
  /**
   * Whom requests to `endpoint` are signed as: `placeholder` (the default for any endpoint but
   * AWS's own: the embedded DynamoDB ignores credentials, and a developer's machine may have none),
   * `environment` (the environment's credentials: a Lambda function's role, which start:synth's DynamoDB
   * checks against the templates' grants, or an operator's AWS credentials; always so against
   * AWS's own endpoints), or a given access key (the operator of start:synth's DynamoDB).
   */
  signAs?: 'placeholder' | 'environment' | { accessKeyId: string; secretAccessKey: string };
}

/** DynamoDB's own endpoints (`https://dynamodb.<region>.amazonaws.com`, FIPS, China): real AWS. */
export function isAwsEndpoint(endpoint: string): boolean {
  return /(^|\.)amazonaws\.com(\.cn)?$/.test(new URL(endpoint).hostname);
}

const PLACEHOLDER_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

function credentialsFor(options: DynamoTableOptions): Credentials {
  const signAs = options.signAs ?? 'placeholder';
  if (typeof signAs === 'object') return signAs;
  if (!options.endpoint || signAs === 'environment' || isAwsEndpoint(options.endpoint)) return 'environment';
  return PLACEHOLDER_CREDENTIALS;
}

export function createDynamoTable(options: DynamoTableOptions): DynamoTable {
  const client = new DynamoClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: credentialsFor(options),
    // Billing decisions must not wait through back-off: fail fast, answer 503.
    maxAttempts: 2,
  });
  return { client, table: options.table };
}

/** The key of a table: the single table's pk/sk unless a template says otherwise (start:synth). */
export interface TableKeys {
  keySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  attributeDefinitions: { AttributeName: string; AttributeType: string }[];
}

const SINGLE_TABLE_KEYS: TableKeys = {
  keySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  attributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'sk', AttributeType: 'S' },
  ],
};

/** Creates the table when it does not exist (local and tests; on AWS the CDK stack owns it). */
export async function ensureTable(store: DynamoTable, keys: TableKeys = SINGLE_TABLE_KEYS): Promise<void> {
  if (await tableStatus(store)) return;
  await store.client.call('CreateTable', {
    TableName: store.table,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keys.attributeDefinitions,
    KeySchema: keys.keySchema,
  });
  // A new table is CREATING for a moment (dynalite too, on a busy machine); writes before it is
  // ACTIVE fail as if it did not exist.
  const deadline = Date.now() + TABLE_CREATION_WAIT_MS;
  while ((await tableStatus(store)) !== 'ACTIVE') {
    if (Date.now() > deadline)
      throw new Error(`table ${store.table} not ACTIVE after ${TABLE_CREATION_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, TABLE_POLL_MS));
  }
}

/** The table's status (`ACTIVE`, `CREATING`…), undefined when there is no such table. */
export async function tableStatus(store: DynamoTable): Promise<string | undefined> {
  try {
    const { Table } = await store.client.call('DescribeTable', { TableName: store.table });
    return (Table as { TableStatus?: string } | undefined)?.TableStatus ?? 'UNKNOWN';
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/** How long a process waits for the table it created to become ACTIVE, asking every TABLE_POLL_MS. */
const TABLE_CREATION_WAIT_MS = 60_000;
const TABLE_POLL_MS = 100;

/** True when a conditional write was refused because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** Sends a conditional write: true when it was applied, false when its condition did not hold. */
export async function writtenIfCondition(send: Promise<unknown>): Promise<boolean> {
  try {
    await send;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Every item of one `type`, across all pages of a consistent scan (operator commands, not requests). */
export function scanAll(
  store: DynamoTable,
  type: string,
  filter?: { expression: string; values: Record<string, unknown> },
): Promise<Record<string, unknown>[]> {
  return everyPage((startKey) =>
    store.client.scan({
      TableName: store.table,
      FilterExpression: `#type = :type${filter ? ` AND (${filter.expression})` : ''}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': type, ...filter?.values },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    }),
  );
}

/** Every item of one partition whose sort key begins with `prefix` (all of them without one), across all pages. */
export function queryAll(
  store: DynamoTable,
  pk: string,
  prefix?: string,
): Promise<Record<string, unknown>[]> {
  return everyPage((startKey) =>
    store.client.query({
      TableName: store.table,
      KeyConditionExpression: `pk = :pk${prefix === undefined ? '' : ' AND begins_with(sk, :prefix)'}`,
      ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    }),
  );
}

type Page = { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };

/** The items of every page, asking for each next one from where the last ended. */
async function everyPage(
  read: (startKey: Record<string, unknown> | undefined) => Promise<Page>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await read(startKey);
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
