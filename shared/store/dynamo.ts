/**
 * The one DynamoDB client and the table it talks to. Every repository takes a `Store`.
 */
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface Store {
  doc: DynamoDBDocumentClient;
  table: string;
}

export interface StoreOptions {
  table: string;
  region: string;
  /** Unset on AWS: the SDK finds DynamoDB itself. */
  endpoint?: string;
}

export function createStore(options: StoreOptions): Store {
  const client = new DynamoDBClient({
    region: options.region,
    ...(options.endpoint
      ? {
          endpoint: options.endpoint,
          // The embedded DynamoDB ignores credentials, but the SDK signs every request.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    // Billing decisions must not wait through SDK back-off: fail fast, answer 503.
    maxAttempts: 2,
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { doc, table: options.table };
}

/** Creates the table when it does not exist (local and tests; on AWS the CDK stack owns it). */
export async function ensureTable(store: Store): Promise<void> {
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
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
}

/** Resolves when the table answers; for health checks. */
export async function pingStore(store: Store): Promise<void> {
  await store.doc.send(new DescribeTableCommand({ TableName: store.table }));
}

/** True when a conditional write was refused because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}
