/**
 * One bundled Lambda function in a fresh Node process (lambda-runtime.mjs), from a copy of its
 * dist/functions/<name>/ directory in a temp folder, so nothing resolves through node_modules: what
 * Lambda gets is all it has. `invoke` sends an event and answers the handler's result,
 * `invokeStreaming` what a response-streaming handler wrote; `restRequest` is a client's request
 * through API Gateway's streamed proxy integration.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTIONS_DIR } from './built-functions.js';
import { killGroup, ROOT } from './process-group.js';
import {
  type ClientRequest,
  type RestApiAnswer,
  restApiEvent,
  streamedRestAnswer,
} from './rest-api-event.js';

const RUNTIME = join(ROOT, 'test', 'support', 'lambda-runtime.mjs');

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

interface Answer {
  result?: unknown;
  streamed?: { contentType: string; body: string };
  error?: string;
  ms: number;
}

export class LambdaInitError extends Error {}

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
): Promise<LambdaProcess> {
  const folder = await mkdtemp(join(tmpdir(), `lambda-${name}-`));
  const taskRoot = join(folder, 'task');
  await cp(codeDirectory, taskRoot, { recursive: true });
  // Its own process group: stopping it also stops what it started (Chromium in website functions),
  // which would otherwise keep writing its profile into the folder being removed.
  const child: ChildProcess = fork(RUNTIME, [], {
    cwd: taskRoot,
    detached: true,
    // Not the parent's flags: under tsx or vitest they load a TypeScript loader whose hooks
    // tripled the measured import; Lambda starts plain Node.
    execArgv: [],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: {
      PATH: process.env.PATH,
      HOME: folder,
      TMPDIR: folder,
      LAMBDA_TASK_ROOT: taskRoot,
      AWS_LAMBDA_FUNCTION_NAME: `lookup-${name}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LOG_LEVEL: 'silent',
      ...(typeof env === 'function' ? env(taskRoot) : env),
    },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      killGroup(child);
      await exited;
    }
    await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  const [first] = (await once(child, 'message')) as [{ type: string; initMs?: number; error?: string }];
  if (first.type !== 'ready') {
    await stop();
    throw new LambdaInitError(`${name} failed at init: ${first.error}\n${stderr}`);
  }
  let next = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  child.on('message', (message: Answer & { id?: number }) => {
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  const send = async (event: unknown): Promise<Answer> => {
    const id = next++;
    const answer = await new Promise<Answer>((resolve) => {
      pending.set(id, resolve);
      child.send({ id, event });
    });
    pending.delete(id);
    if (answer.error !== undefined) throw new Error(`${name} failed: ${answer.error}\n${stderr}`);
    return answer;
  };
  return {
    taskRoot,
    pid: child.pid as number,
    initMs: first.initMs as number,
    async invoke<T>(event: unknown) {
      const answer = await send(event);
      if (answer.streamed) throw new Error(`${name} streams its response; use invokeStreaming.`);
      return { result: answer.result as T, ms: answer.ms };
    },
    async invokeStreaming(event: unknown) {
      const { streamed, ms } = await send(event);
      if (!streamed)
        throw new Error(`${name} does not stream its response (no awslambda.streamifyResponse).`);
      return {
        streamed: { contentType: streamed.contentType, body: Buffer.from(streamed.body, 'base64') },
        ms,
      };
    },
    stdout: () => stdout,
    stop,
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
