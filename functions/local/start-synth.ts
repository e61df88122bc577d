/**
 * `npm run start:synth`: the synthesized AWS app (cdk.out) served on http://HOST:PORT as AWS would
 * run it, so the same clients and tests as `npm start` run unchanged against it. This is the wiring;
 * the emulation is local-aws/: the REST API of the templates (api-gateway.ts), each Lambda function
 * in Node processes of its own with the template's handler, environment, memory and timeout
 * (function-host.ts), Lambda invoke and Secrets Manager (lambda-and-secrets-api.ts) and the table (an
 * embedded DynamoDB under DATA_DIR behind local-dynamodb.ts) and the queues (in memory, behind
 * local-sqs.ts) each enforcing the templates' IAM; the scheduled rules run on their schedules and the
 * event source mappings poll their queues (queue-pollers.ts). It builds first when dist/ is missing and synthesizes
 * when cdk.out is missing or older than the build or infra/, and says so. Settings: PORT, HOST,
 * DATA_DIR, LOG_LEVEL and the ones passed to every function (PASSED_SETTINGS); README.md lists them.
 * It holds DATA_DIR as `npm start` does (one server per folder) and records its table, with an
 * operator's access key, for `npm run admin` on the same DATA_DIR (shared/store/open-store.ts
 * follows it).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { apiGateway } from '../../local-aws/api-gateway.js';
import { readDeployment } from '../../local-aws/cloud-assembly/read-deployment.js';
import { FunctionHost } from '../../local-aws/function-host.js';
import { startLambdaAndSecretsApi } from '../../local-aws/lambda-and-secrets-api.js';
import { startLocalDynamo } from '../../local-aws/local-dynamodb.js';
import { localSqs } from '../../local-aws/local-sqs.js';
import { listenOnLoopback } from '../../local-aws/loopback.js';
import { startQueuePollers } from '../../local-aws/queue-pollers.js';
import { startScheduledRules } from '../../local-aws/scheduled-rules.js';
import { SqsQueues } from '../../local-aws/sqs-queue.js';
import { lockOf, makeOnce } from '../../scripts/make-once.js';
import { createLogger } from '../../shared/logger.js';
import { createRepositories } from '../../shared/service.js';
import {
  causeText,
  dataDirInUseMessage,
  listenFailure,
  loadConfigOrExplain,
  StartUpFailure,
} from '../../shared/start-up-failure.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { startEmbeddedDynamo } from '../../shared/store/dynamodb/embedded-dynamodb.js';
import { endpointFile } from '../../shared/store/dynamodb/endpoint-file.js';
import { createDynamoTable, ensureTable } from '../../shared/store/dynamodb/table.js';
import { synthStatePath } from '../../shared/store/local-store.js';
import { DataDirInUseError, holdServerLock } from '../../shared/store/sqlite/server-lock.js';
import { banner, baseUrlOf, issueDemoKey } from './demo-key.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_REPORT = join(ROOT, 'dist', 'functions', 'build-report.json');
const CDK_OUT = join(ROOT, 'cdk.out');
const BIN = join(ROOT, 'node_modules', '.bin');

/** `npm start`'s settings that reach every function, as an operator would set them on AWS. */
export const PASSED_SETTINGS = [
  'LOG_LEVEL',
  'SERVICE_DOMAIN',
  'DNS_SERVERS',
  'SMTP_PORT',
  'UNSAFE_SMTP_ALLOW_HOSTS',
  'UNSAFE_WEBSITE_ALLOW_HOSTS',
  // Client ID Metadata Documents served on loopback by tests (the oauth and console functions fetch them).
  'UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS',
  'UNSAFE_OAUTH_CLIENT_CA',
  // Batch webhooks and items URLs served on loopback by tests.
  'UNSAFE_BATCH_URL_ALLOW_HOSTS',
  'MCP_REJECTED_HOSTS',
  'GATEWAY_MCP_ENABLED',
  'RECONCILE_AFTER_SECONDS',
] as const;

/** Settings of start:synth alone (test-only: they shorten what AWS would wait for). */
const synthSettings = z.object({
  /** Caps every function's timeout and every integration's (API Gateway answers 504 first). */
  START_SYNTH_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(900).optional(),
  /** Runs every scheduled rule this often instead of its own rate. */
  START_SYNTH_SCHEDULE_SECONDS: z.coerce.number().int().min(1).max(86_400).optional(),
  /** Serves this cloud assembly as it is (no build, no synth): a template edited on purpose. */
  START_SYNTH_CDK_OUT: z.string().min(1).optional(),
});

const config = loadConfigOrExplainExit();
const logger = createLogger(config.LOG_LEVEL);

function loadConfigOrExplainExit() {
  try {
    return loadConfigOrExplain();
  } catch (error) {
    process.stderr.write(`${error instanceof StartUpFailure ? error.message : causeText(error)}\n`);
    process.exit(1);
  }
}

const mtime = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** The newest of the build and the files the CDK app is made of. */
function newestInput(): number {
  const infra = join(ROOT, 'infra');
  return Math.max(
    mtime(BUILD_REPORT),
    mtime(join(ROOT, 'cdk.json')),
    ...readdirSync(infra).map((file) => mtime(join(infra, file))),
  );
}

/**
 * Builds when dist/ is missing, synthesizes when cdk.out is missing or older than the build or
 * infra/ (`npm run build` itself stays the developer's call: a stale build is what they test). Each
 * at most once at a time on one checkout: a second start:synth waits for the first's output.
 */
async function ensureSynthesized(): Promise<void> {
  const run = (why: string, command: string, args: string[]) => {
    process.stdout.write(`${why}: ${command} ${args.join(' ')}\n`);
    const result = spawnSync(join(BIN, command), args, { cwd: ROOT, stdio: 'inherit' });
    if (result.status !== 0) throw new StartUpFailure('synth_failed', `${command} ${args.join(' ')} failed.`);
  };
  const waitingFor = (what: string) => () =>
    process.stdout.write(`Another process is ${what} this checkout; waiting for it\n`);
  await makeOnce(
    lockOf(ROOT, 'build'),
    () => existsSync(BUILD_REPORT),
    () => run('No build in dist/functions; building', 'tsx', ['scripts/build-functions.ts']),
    waitingFor('building'),
  );
  const manifest = join(CDK_OUT, 'manifest.json');
  await makeOnce(
    lockOf(ROOT, 'synth'),
    () => mtime(manifest) >= newestInput(),
    () =>
      run(
        existsSync(manifest)
          ? 'cdk.out is older than the build or infra/; synthesizing'
          : 'No cdk.out; synthesizing',
        'cdk',
        ['synth', '--no-notices', '--quiet'],
      ),
    waitingFor('synthesizing'),
  );
}

async function main() {
  const parsed = synthSettings.safeParse(process.env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new StartUpFailure('invalid_configuration', `Invalid configuration: ${issues.join('; ')}.`);
  }
  const settings = parsed.data;
  const releaseDataDir = holdDataDir();
  const cdkOut = settings.START_SYNTH_CDK_OUT ?? CDK_OUT;
  if (!settings.START_SYNTH_CDK_OUT) await ensureSynthesized();
  // Listening before the templates are read: the queue URLs they resolve to point at it.
  const sqsServer = createServer();
  const sqsEndpoint = await listenOnLoopback(sqsServer);
  const deployment = readDeployment(cdkOut, { queueEndpoint: sqsEndpoint.url });
  const state = resolve(synthStatePath(config));
  const work = join(state, 'work');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const dynamo = await startEmbeddedDynamo({ path: join(state, 'dynamodb') });
  // The single table of the templates, as CloudFormation would create it.
  const [table] = deployment.tables;
  if (!table) throw new StartUpFailure('synth_failed', 'The templates define no DynamoDB table.');
  const tableClient = createDynamoTable({
    table: table.name,
    region: deployment.region,
    endpoint: dynamo.endpoint,
  });
  await ensureTable(tableClient, table);
  const store = createDynamoStore(tableClient);
  const demoKey = await issueDemoKey(createRepositories(store), config, 'npm run start:synth');

  // Listening last, once every part is ready; functions read the address at their first start.
  const server = createServer();
  let base = '';
  const passed = Object.fromEntries(
    PASSED_SETTINGS.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
  );
  let lambdaAndSecretsUrl = '';
  let localDynamoUrl = '';
  const host = new FunctionHost({
    deployment,
    workDirectory: work,
    timeoutCapSeconds: settings.START_SYNTH_TIMEOUT_SECONDS,
    logger,
    environmentFor: () => ({
      ...passed,
      // AWS's endpoints, here: the embedded DynamoDB and the local Lambda and Secrets Manager, each
      // enforcing the templates' IAM.
      DYNAMODB_ENDPOINT: localDynamoUrl,
      AWS_ENDPOINT_URL_LAMBDA: lambdaAndSecretsUrl,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: lambdaAndSecretsUrl,
      SQS_ENDPOINT: sqsEndpoint.url,
      // The address clients use, as a custom domain in front of the stage would be.
      PUBLIC_BASE_URL: base,
    }),
  });
  const lambdaAndSecrets = await startLambdaAndSecretsApi({
    deployment,
    host,
    secretsFile: join(state, 'secrets.json'),
    logger,
  });
  lambdaAndSecretsUrl = lambdaAndSecrets.url;
  // The operator's key to the table (the CLI's), known to this run only, as an AWS access key is.
  const operator = {
    accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  const localDynamo = await startLocalDynamo({
    deployment,
    host,
    upstream: dynamo.endpoint,
    operatorAccessKeyId: operator.accessKeyId,
    logger,
  });
  localDynamoUrl = localDynamo.url;
  const queues = new SqsQueues(deployment.queues);
  const stopLongPolls = new AbortController();
  const serveSqs = localSqs({
    deployment,
    queues,
    host,
    operatorAccessKeyId: operator.accessKeyId,
    logger,
    signal: stopLongPolls.signal,
  });
  sqsServer.on('request', (req, res) => {
    serveSqs(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'local SQS failed');
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await endpointFile.write(state, {
    server: 'npm run start:synth',
    endpoint: localDynamo.url,
    table: table.name,
    region: deployment.region,
    credentials: operator,
  });
  const serve = apiGateway({
    deployment,
    host,
    logger,
    integrationTimeoutCapMs:
      settings.START_SYNTH_TIMEOUT_SECONDS && settings.START_SYNTH_TIMEOUT_SECONDS * 1000,
  });
  server.on('request', (req, res) => {
    serve(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'gateway failure');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal server error' }));
    });
  });
  server.listen(config.PORT, config.HOST);
  await once(server, 'listening').catch((error: unknown) => {
    throw listenFailure(config, error);
  });
  base = baseUrlOf(server.address() as AddressInfo);

  const stopScheduledRules = startScheduledRules({
    deployment,
    host,
    logger,
    everyMs: settings.START_SYNTH_SCHEDULE_SECONDS && settings.START_SYNTH_SCHEDULE_SECONDS * 1000,
  });
  const stopQueuePollers = startQueuePollers({ deployment, queues, host, logger });

  process.stdout.write(
    banner({
      title: 'Lookup service (synthesized AWS app)',
      base,
      state: `${state} (embedded DynamoDB, table ${table.name}; npm run admin on this DATA_DIR writes to it)`,
      data: `${deployment.functions.length} functions from ${cdkOut}, stage ${deployment.api.stage}; ${deployment.queues.length} queues on ${sqsEndpoint.url}`,
      demoKey,
    }),
  );

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      stopScheduledRules();
      stopLongPolls.abort();
      // Pollers stop taking batches; a batch in flight ends with its environment below (not deleted).
      const pollersStopped = stopQueuePollers();
      await endpointFile.remove(state);
      server.close();
      server.closeAllConnections();
      await host.close();
      await pollersStopped;
      await sqsEndpoint.close();
      await lambdaAndSecrets.close();
      await localDynamo.close();
      await store.close();
      await dynamo.close();
      releaseDataDir();
      process.exit(0);
    });
  }
}

/** One server per DATA_DIR, as for `npm start`: the operator CLI must know whose store to write to. */
function holdDataDir(): () => void {
  try {
    return holdServerLock(config.DATA_DIR);
  } catch (error) {
    if (error instanceof DataDirInUseError)
      throw new StartUpFailure('store_unavailable', dataDirInUseMessage(config), { cause: error });
    throw error;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof StartUpFailure ? error.message : `npm run start:synth failed: ${causeText(error)}`}\n`,
  );
  process.exit(1);
});
