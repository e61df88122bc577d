/**
 * One bundled Lambda function in a fresh Node process (local-aws/lambda-instance.ts), from a copy of its
 * dist/functions/<name>/ directory in a temp folder, so nothing resolves through node_modules: what
 * Lambda gets is all it has. `invoke` sends an event and answers the handler's result,
 * `invokeStreaming` what a response-streaming handler wrote; `restRequest` is a client's request
 * through API Gateway's streamed proxy integration.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LambdaInitError,
  LambdaInstance,
  type LambdaInstanceOptions,
} from '../../local-aws/lambda-instance.js';
import { FUNCTIONS_DIR } from './built-functions.js';
import {
  type ClientRequest,
  type RestApiAnswer,
  restApiEvent,
  streamedRestAnswer,
} from './rest-api-event.js';

export { LambdaInitError };

/** Tests wait this long for one invocation (the functions' own budgets are shorter). */
const INVOKE_TIMEOUT_MS = 120_000;

export interface LambdaProcess {
  /** The copied code asset (LAMBDA_TASK_ROOT). */
  taskRoot: string;
  pid: number;
  /** Milliseconds the import of index.mjs took (the init phase). */
  initMs: number;
  /** A buffered handler's return value (it fails for a response-streaming handler). */
  invoke<T = unknown>(event: unknown): Promise<{ result: T; ms: number }>;
  /** What a response-streaming handler wrote (it fails for a buffered handler). */
  invokeStreaming(event: unknown): Promise<{ streamed: StreamedAnswer; ms: number }>;
  /** What the function wrote on stdout so far (its EMF metric records among it). */
  stdout(): string;
  stop(): Promise<void>;
}

/** The bytes a response-streaming function wrote, and the content type its stream declared. */
export interface StreamedAnswer {
  contentType: string;
  body: Buffer;
}

type Env = Record<string, string>;

/**
 * Starts `name`'s bundle (or the code in `codeDirectory`) with `env` (plus the variables the Lambda
 * runtime sets); a function of the task root gives paths inside it, as infra gives /var/task/... on
 * Lambda.
 */
export async function startLambda(
  name: string,
  env: Env | ((taskRoot: string) => Env),
  codeDirectory = join(FUNCTIONS_DIR, name),
  launcher?: LambdaInstanceOptions['launcher'],
): Promise<LambdaProcess> {
  const folder = await mkdtemp(join(tmpdir(), `lambda-${name}-`));
  const taskRoot = join(folder, 'task');
  await cp(codeDirectory, taskRoot, { recursive: true });
  const functionName = `lookup-${name}`;
  let instance: LambdaInstance;
  try {
    instance = await LambdaInstance.start({
      functionName,
      taskRoot,
      handler: 'index.handler',
      memoryMb: 1024,
      ...(launcher ? { launcher } : {}),
      environment: {
        PATH: process.env.PATH ?? '',
        HOME: folder,
        TMPDIR: folder,
        AWS_LAMBDA_FUNCTION_NAME: functionName,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        LOG_LEVEL: 'silent',
        ...(typeof env === 'function' ? env(taskRoot) : env),
      },
    });
  } catch (error) {
    await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    throw error;
  }
  const send = async (event: unknown) => {
    const invocation = await instance.invoke(event, INVOKE_TIMEOUT_MS);
    if (invocation.kind === 'error' || invocation.kind === 'crash') {
      throw new Error(`${name} failed: ${invocation.errorMessage}\n${instance.logs().stderr}`);
    }
    if (invocation.kind === 'timeout') throw new Error(`${name} timed out`);
    return invocation;
  };
  return {
    taskRoot,
    pid: instance.pid,
    initMs: instance.initMs,
    async invoke<T>(event: unknown) {
      const invocation = await send(event);
      if (invocation.kind !== 'result') throw new Error(`${name} streams its response; use invokeStreaming.`);
      return { result: invocation.result as T, ms: invocation.ms };
    },
    async invokeStreaming(event: unknown) {
      const invocation = await send(event);
      if (invocation.kind !== 'streamed') {
        throw new Error(`${name} does not stream its response (no awslambda.streamifyResponse).`);
      }
      return { streamed: { contentType: invocation.contentType, body: invocation.body }, ms: invocation.ms };
    },
    stdout: () => instance.logs().stdout,
    async stop() {
      await instance.stop();
      await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** One client request through API Gateway to a REST function: its event, the streamed invoke, the answer. */
export async function restRequest(
  lambda: LambdaProcess,
  client: ClientRequest,
): Promise<RestApiAnswer & { ms: number }> {
  const { streamed, ms } = await lambda.invokeStreaming(restApiEvent(client));
  return { ...streamedRestAnswer(streamed), ms };
}
