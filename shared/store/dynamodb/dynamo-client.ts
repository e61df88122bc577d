/**
 * The DynamoDB client of the store adapter: DynamoDB's JSON protocol over signed HTTP
 * (shared/net/aws-http.ts), its values (un)marshalled by the AWS SDK's own `@aws-sdk/util-dynamodb`
 * as the SDK's document client does.
 *
 * Why not the SDK's client: a cold start follows the bytes a function loads at init (about 0.23 ms
 * per KB, docs/benchmarks.md), and the SDK's DynamoDB client was about 250 KB of every function that
 * reads the table (its Smithy runtime, every AWS protocol, endpoint rules, waiters), for the seven
 * calls this adapter makes; this client and its signing are about 20 KB. docs/architecture.md, "The
 * DynamoDB client", lists what it keeps of the SDK's behaviour and what it does not do.
 */

import type {
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Credentials } from '../../net/aws-http.js';
import { AwsJsonProtocol, type CallOptions } from '../../net/aws-json-protocol.js';

export interface DynamoClientOptions {
  region: string;
  /** Unset on AWS: DynamoDB's regional endpoint. */
  endpoint?: string;
  credentials: Credentials;
  /** Attempts of a call that failed in a way worth repeating (a lost connection, a 5xx, throttling). */
  maxAttempts: number;
}

/** One call as sent: DynamoDB's operation name (`GetItem`, `PutItem`…) and its document-level input. */
export interface DynamoCall {
  operation: string;
  input: Readonly<Record<string, unknown>>;
}

/** Wraps every call, in the order added (benchmarks count calls, tests make chosen ones fail). */
export type DynamoMiddleware = (call: DynamoCall, next: () => Promise<unknown>) => Promise<unknown>;

/** The SDK's output types, without the response metadata this client does not keep. */
type WithoutMetadata<T> = Omit<T, '$metadata'>;

const MARSHALL_OPTIONS = { removeUndefinedValues: true };

export class DynamoClient {
  private readonly protocol: AwsJsonProtocol;
  private readonly middleware: DynamoMiddleware[] = [];

  constructor(options: DynamoClientOptions) {
    this.protocol = new AwsJsonProtocol({
      service: 'dynamodb',
      targetPrefix: 'DynamoDB_20120810',
      ...options,
    });
  }

  /** Adds a middleware around every call from now on (outermost first). */
  use(middleware: DynamoMiddleware): void {
    this.middleware.push(middleware);
  }

  get(input: GetCommandInput, options?: CallOptions): Promise<WithoutMetadata<GetCommandOutput>> {
    return this.document('GetItem', input, options);
  }

  put(input: PutCommandInput, options?: CallOptions): Promise<WithoutMetadata<PutCommandOutput>> {
    return this.document('PutItem', input, options);
  }

  update(input: UpdateCommandInput, options?: CallOptions): Promise<WithoutMetadata<UpdateCommandOutput>> {
    return this.document('UpdateItem', input, options);
  }

  delete(input: DeleteCommandInput, options?: CallOptions): Promise<WithoutMetadata<DeleteCommandOutput>> {
    return this.document('DeleteItem', input, options);
  }

  query(input: QueryCommandInput, options?: CallOptions): Promise<WithoutMetadata<QueryCommandOutput>> {
    return this.document('Query', input, options);
  }

  scan(input: ScanCommandInput, options?: CallOptions): Promise<WithoutMetadata<ScanCommandOutput>> {
    return this.document('Scan', input, options);
  }

  batchWrite(
    input: BatchWriteCommandInput,
    options?: CallOptions,
  ): Promise<WithoutMetadata<BatchWriteCommandOutput>> {
    return this.document('BatchWriteItem', input, options);
  }

  /** A call whose input and output are DynamoDB's own JSON (table administration: DescribeTable, CreateTable). */
  call(operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.through({ operation, input }, () => this.protocol.call(operation, input)) as Promise<
      Record<string, unknown>
    >;
  }

  /** Lets go of idle connections, so that a process with nothing else to do can end. */
  destroy(): void {
    this.protocol.destroy();
  }

  private async document<T>(operation: string, input: object, options: CallOptions = {}): Promise<T> {
    const call = { operation, input: input as Record<string, unknown> };
    const output = await this.through(call, async () =>
      unmarshallOutput(await this.protocol.call(operation, marshallInput(call.input), options)),
    );
    return output as T;
  }

  private through(call: DynamoCall, last: () => Promise<unknown>): Promise<unknown> {
    const run = (index: number): Promise<unknown> => {
      const middleware = this.middleware[index];
      return middleware ? middleware(call, () => run(index + 1)) : last();
    };
    return run(0);
  }
}

const VALUE_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
const ITEM_FIELDS = ['Item', 'Attributes', 'LastEvaluatedKey'] as const;

type Requests = Record<string, { PutRequest?: { Item: object }; DeleteRequest?: { Key: object } }[]>;

function marshallInput(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...input };
  for (const field of VALUE_FIELDS) {
    const value = input[field];
    if (value !== undefined) wire[field] = marshall(value as Record<string, unknown>, MARSHALL_OPTIONS);
  }
  if (input.RequestItems)
    wire.RequestItems = mapRequests(input.RequestItems as Requests, (item) =>
      marshall(item, MARSHALL_OPTIONS),
    );
  return wire;
}

function unmarshallOutput(wire: Record<string, unknown>): Record<string, unknown> {
  const output: Record<string, unknown> = { ...wire };
  for (const field of ITEM_FIELDS) {
    const value = wire[field];
    if (value !== undefined) output[field] = unmarshall(value as Parameters<typeof unmarshall>[0]);
  }
  if (Array.isArray(wire.Items)) output.Items = wire.Items.map((item) => unmarshall(item));
  if (wire.UnprocessedItems) {
    output.UnprocessedItems = mapRequests(wire.UnprocessedItems as Requests, (item) =>
      unmarshall(item as Parameters<typeof unmarshall>[0]),
    );
  }
  return output;
}

/** A BatchWriteItem's requests by table with every item and key converted. */
function mapRequests(requests: Requests, convert: (item: object) => object): Requests {
  return Object.fromEntries(
    Object.entries(requests).map(([table, list]) => [
      table,
      list.map((request) =>
        request.PutRequest
          ? { PutRequest: { Item: convert(request.PutRequest.Item) } }
          : { DeleteRequest: { Key: convert(request.DeleteRequest?.Key ?? {}) } },
      ),
    ]),
  );
}
