/**
 * DynamoDB for the functions of start:synth: the embedded DynamoDB behind a loopback proxy that
 * enforces each caller's role as the templates grant it, per request: the action
 * (`dynamodb:GetItem`, ...), the table's ARN, and the partition keys the request touches as
 * `dynamodb:LeadingKeys` (infra scopes every grant to key prefixes); a BatchWriteItem or BatchGetItem
 * is checked on each table it names, with the keys of all its requests there, as IAM does. A refusal is DynamoDB's own
 * AccessDeniedException (400), so a grant the templates forgot or scoped too narrowly fails here,
 * not on AWS. Callers are known by their SigV4 access key id, as in lambda-and-secrets-api.ts
 * (signatures are not verified: every caller is a process of this machine): a function's role, or the
 * operator, an identity allowed every DynamoDB action on the tables, as an administrator's credentials
 * are on AWS (the operator CLI, through the record functions/local/start-synth.ts writes for it). Any other key is refused with
 * DynamoDB's UnrecognizedClientException, so no tool reaches the table by accident.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import type { Logger } from '../shared/logger.js';
import type { DeployedTable, Deployment, PolicyStatement } from './deployment-model.js';
import type { FunctionHost } from './function-host.js';
import { isAllowed } from './iam.js';
import { type LoopbackEndpoint, listenOnLoopback, signingKeyId } from './loopback.js';

type AttributeValue = Record<string, unknown>;
type Key = Record<string, AttributeValue>;

/** BatchWriteItem's requests of one table, or BatchGetItem's. */
type BatchedRequests = { PutRequest?: { Item?: Key }; DeleteRequest?: { Key?: Key } }[] | { Keys?: Key[] };

interface DynamoRequest {
  TableName?: string;
  RequestItems?: Record<string, BatchedRequests>;
  Key?: Record<string, AttributeValue>;
  Item?: Record<string, AttributeValue>;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
}

export type LocalDynamo = LoopbackEndpoint;

/** Who signed a request, with the policy its requests are checked against. */
interface Caller {
  name: string;
  roleArn: string;
  policy: readonly PolicyStatement[];
}

export async function startLocalDynamo(options: {
  deployment: Deployment;
  host: FunctionHost;
  /** The embedded DynamoDB's endpoint. */
  upstream: string;
  /** The operator's access key id. */
  operatorAccessKeyId: string;
  logger: Logger;
}): Promise<LocalDynamo> {
  const upstream = new URL(options.upstream);
  const { accountId } = options.deployment;
  const operator: Caller = {
    name: 'operator',
    roleArn: `arn:aws:iam::${accountId}:user/operator`,
    policy: [
      {
        Effect: 'Allow',
        Action: 'dynamodb:*',
        Resource: options.deployment.tables.flatMap((table) => [table.arn, `${table.arn}/index/*`]),
      },
    ],
  };
  const callerOf = (req: IncomingMessage): Caller | undefined =>
    options.host.callerOf(req) ?? (signingKeyId(req) === options.operatorAccessKeyId ? operator : undefined);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, 'local DynamoDB proxy failed');
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await buffer(req);
    const caller = callerOf(req);
    if (!caller) {
      options.logger.warn({ accessKeyId: signingKeyId(req) ?? null }, 'unknown caller refused');
      refuse(res, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      return;
    }
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const parsed = JSON.parse(body.toString('utf8') || '{}') as DynamoRequest;
    const action = `dynamodb:${operation}`;
    for (const tableName of tableNamesOf(parsed)) {
      const table = options.deployment.tables.find((candidate) => candidate.name === tableName);
      const resource =
        table?.arn ??
        `arn:aws:dynamodb:${options.deployment.region}:${options.deployment.accountId}:table/${tableName}`;
      const leadingKeys = table ? partitionKeysOf(parsed, table) : [];
      if (!isAllowed(caller.policy, action, resource, new Map([['dynamodb:LeadingKeys', leadingKeys]]))) {
        options.logger.warn({ function: caller.name, action, resource, leadingKeys }, 'access denied');
        refuse(
          res,
          'AccessDeniedException',
          `User: ${caller.roleArn} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`,
        );
        return;
      }
    }
    const forwarded = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    });
    forwarded.end(body);
    const [answer] = (await once(forwarded, 'response')) as [IncomingMessage];
    res.writeHead(answer.statusCode ?? 500, answer.headers);
    answer.pipe(res);
  }

  return listenOnLoopback(server);
}

/** DynamoDB's answer to a request it refuses before acting: 400 with the error's type. */
function refuse(res: ServerResponse, type: string, message: string): void {
  res
    .writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' })
    .end(JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }));
}

/** The tables a request names: its TableName, or each table of a batch operation's RequestItems. */
export function tableNamesOf(request: DynamoRequest): string[] {
  return request.RequestItems ? Object.keys(request.RequestItems) : [String(request.TableName)];
}

/**
 * The partition key values a request touches in `table`: its Key or Item, every Item and Key of a
 * batch operation's requests on the table, or, for a Query, the value the key condition sets the
 * partition key equal to. None for a Scan (IAM's ForAllValues then holds).
 */
export function partitionKeysOf(request: DynamoRequest, table: DeployedTable): string[] {
  const hashKey = table.keySchema.find((key) => key.KeyType === 'HASH')?.AttributeName as string;
  const scalar = (value: AttributeValue | undefined) =>
    value === undefined ? [] : [String(value.S ?? value.N ?? value.B ?? JSON.stringify(value))];
  if (request.RequestItems) {
    const batched = Object.hasOwn(request.RequestItems, table.name)
      ? request.RequestItems[table.name]
      : undefined;
    const records = Array.isArray(batched)
      ? batched.map((write) => write.PutRequest?.Item ?? write.DeleteRequest?.Key)
      : (batched?.Keys ?? []);
    return [...new Set(records.flatMap((record) => scalar(record?.[hashKey])))];
  }
  const record = request.Key ?? request.Item;
  if (record) return scalar(record[hashKey]);
  if (request.KeyConditionExpression) {
    const names = new Map(Object.entries(request.ExpressionAttributeNames ?? {}));
    const values = new Map(Object.entries(request.ExpressionAttributeValues ?? {}));
    for (const [, name, placeholder] of request.KeyConditionExpression.matchAll(
      /(#?[\w]+)\s*=\s*(:[\w]+)/g,
    )) {
      if ((names.get(name as string) ?? name) === hashKey) return scalar(values.get(placeholder as string));
    }
  }
  return [];
}
