/**
 * The one DynamoDB client and the table it talks to, shared by every repository of the DynamoDB
 * adapter.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type ScalarAttributeType,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';

export interface DynamoTable {
  doc: DynamoDBDocumentClient;
  table: string;
}

export interface DynamoTableOptions {
  table: string;
  region: string;
  /** Unset on AWS: the SDK finds DynamoDB itself. */
  endpoint?: string;
  /**
   * Whom requests to `endpoint` are signed as: `placeholder` (the default for any endpoint but
   * AWS's own: the embedded DynamoDB ignores credentials, and a developer's machine may have none),
   * `environment` (the SDK's own credentials: a Lambda function's role, which start:synth's DynamoDB
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

function credentialsFor(options: DynamoTableOptions) {
  const signAs = options.signAs ?? 'placeholder';
  if (typeof signAs === 'object') return signAs;
  if (!options.endpoint || signAs === 'environment' || isAwsEndpoint(options.endpoint)) return undefined;
  return PLACEHOLDER_CREDENTIALS;
}

export function createDynamoTable(options: DynamoTableOptions): DynamoTable {
  const credentials = credentialsFor(options);
  const client = new DynamoDBClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(credentials ? { credentials } : {}),
    // Billing decisions must not wait through SDK back-off: fail fast, answer 503.
    maxAttempts: 2,
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { doc, table: options.table };
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
  try {
    await store.doc.send(new DescribeTableCommand({ TableName: store.table }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  await store.doc.send(
    new CreateTableCommand({
      TableName: store.table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keys.attributeDefinitions.map(({ AttributeName, AttributeType }) => ({
        AttributeName,
        AttributeType: AttributeType as ScalarAttributeType,
      })),
      KeySchema: keys.keySchema,
    }),
  );
  // A new table is CREATING for a moment (dynalite too, on a busy machine); writes before it is
  // ACTIVE fail as if it did not exist.
  await waitUntilTableExists(
    { client: store.doc, minDelay: 1, maxDelay: 1, maxWaitTime: TABLE_CREATION_WAIT_SECONDS },
    { TableName: store.table },
  );
}

/** How long a process waits for the table it created to become ACTIVE. */
const TABLE_CREATION_WAIT_SECONDS = 60;

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
    store.doc.send(
      new ScanCommand({
        TableName: store.table,
        FilterExpression: `#type = :type${filter ? ` AND (${filter.expression})` : ''}`,
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': type, ...filter?.values },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    ),
  );
}

/** Every item of one partition whose sort key begins with `prefix` (all of them without one), across all pages. */
export function queryAll(
  store: DynamoTable,
  pk: string,
  prefix?: string,
): Promise<Record<string, unknown>[]> {
  return everyPage((startKey) =>
    store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: `pk = :pk${prefix === undefined ? '' : ' AND begins_with(sk, :prefix)'}`,
        ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    ),
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
