/**
 * The Lambda service of start:synth: every function of the deployment, each invocation in an
 * execution environment of its own (lambda-instance.ts) as Lambda runs them: an idle environment of
 * the function takes the event, else a new one starts (a cold start, logged); an environment that
 * timed out or crashed is gone, and the next event starts another. The environment of each process
 * is the template's variables, the runtime's own (function name, memory, region, the role's
 * credentials) and the local endpoints and settings the caller adds; nothing of the shell.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Logger } from '../shared/logger.js';
import type { DeployedFunction, Deployment } from './deployment-model.js';
import { type Invocation, LambdaInitError, LambdaInstance } from './lambda-instance.js';
import { signingKeyId } from './loopback.js';

/** Where Lambda puts a function's code. */
const LAMBDA_TASK_ROOT = '/var/task';

export interface FunctionHostOptions {
  deployment: Deployment;
  /** Variables a function gets beyond the template's: local endpoints and pass-through settings. */
  environmentFor(fn: DeployedFunction): Record<string, string>;
  /** Where task roots and each environment's /tmp are made. */
  workDirectory: string;
  /** A test-only cap on every function's timeout, in seconds. */
  timeoutCapSeconds?: number;
  logger: Logger;
}

interface HostedFunction {
  fn: DeployedFunction;
  idle: LambdaInstance[];
  taskRoot?: Promise<string>;
  /** The role's credentials: the local endpoints know the caller by its access key id. */
  accessKeyId: string;
}

export class FunctionHost {
  private readonly hosted = new Map<string, HostedFunction>();
  private readonly byAccessKey = new Map<string, DeployedFunction>();
  private readonly running = new Set<LambdaInstance>();
  private started = 0;

  constructor(private readonly options: FunctionHostOptions) {
    for (const fn of options.deployment.functions) {
      const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
      const entry: HostedFunction = { fn, idle: [], accessKeyId };
      this.hosted.set(fn.name, entry);
      this.hosted.set(fn.arn, entry);
      this.byAccessKey.set(accessKeyId, fn);
    }
  }

  /** The function a name or ARN (with or without a qualifier such as `:$LATEST`) designates. */
  find(nameOrArn: string): DeployedFunction | undefined {
    const unqualified = /^arn:[^:]+:lambda:[^:]+:\d+:function:[^:]+/.exec(nameOrArn)?.[0] ?? nameOrArn;
    return this.hosted.get(unqualified)?.fn;
  }

  /** The function whose role's credentials signed `req`; undefined for anyone else. */
  callerOf(req: IncomingMessage): DeployedFunction | undefined {
    const keyId = signingKeyId(req);
    return keyId === undefined ? undefined : this.byAccessKey.get(keyId);
  }

  timeoutMsOf(fn: DeployedFunction): number {
    const cap = this.options.timeoutCapSeconds;
    return Math.min(fn.timeoutSeconds, cap ?? Number.POSITIVE_INFINITY) * 1000;
  }

  /**
   * Runs `event` in an environment of `fn`. An init failure is the invocation's error
   * (Runtime.InitError), as Lambda reports it, and the next event tries a fresh start.
   */
  async invoke(fn: DeployedFunction, event: unknown): Promise<Invocation> {
    const hosted = this.hosted.get(fn.arn) as HostedFunction;
    // An idle environment whose process ended meanwhile is gone, as Lambda would have reclaimed it.
    let instance = hosted.idle.pop();
    while (instance && !instance.alive) {
      this.running.delete(instance);
      instance = hosted.idle.pop();
    }
    let invocation = instance ? await this.invokeIn(hosted, instance, event) : undefined;
    // One that died just before the event reached it (its end not yet seen): a fresh one takes it.
    if (invocation === undefined || (invocation.kind === 'crash' && !invocation.received)) {
      try {
        instance = await this.start(hosted);
      } catch (error) {
        if (!(error instanceof LambdaInitError)) throw error;
        this.options.logger.error({ function: fn.name, err: error }, 'init failed');
        return { kind: 'error', errorType: 'Runtime.InitError', errorMessage: error.message, ms: 0 };
      }
      invocation = await this.invokeIn(hosted, instance, event);
    }
    return invocation;
  }

  /** Runs `event` in `instance`; an environment that timed out or crashed is ended and dropped. */
  private async invokeIn(
    hosted: HostedFunction,
    instance: LambdaInstance,
    event: unknown,
  ): Promise<Invocation> {
    const { fn } = hosted;
    const invocation = await instance.invoke(event, this.timeoutMsOf(fn));
    if (invocation.kind === 'timeout' || invocation.kind === 'crash' || !instance.alive) {
      this.running.delete(instance);
      await instance.stop();
      if (invocation.kind !== 'crash' || invocation.received) {
        this.options.logger.warn(
          {
            function: fn.name,
            outcome: invocation.kind,
            ms: Math.round(invocation.ms),
            logs: instance.logs().stderr.slice(-2000),
          },
          invocation.kind === 'timeout'
            ? `Task timed out after ${this.timeoutMsOf(fn) / 1000} seconds`
            : 'environment ended',
        );
      }
    } else {
      hosted.idle.push(instance);
    }
    return invocation;
  }

  private async start(hosted: HostedFunction): Promise<LambdaInstance> {
    const { fn } = hosted;
    hosted.taskRoot ??= this.copyCode(fn);
    const taskRoot = await hosted.taskRoot;
    const tmp = join(this.options.workDirectory, 'tmp', `${fn.name}-${++this.started}`);
    await mkdir(tmp, { recursive: true });
    const { deployment } = this.options;
    const instance = await LambdaInstance.start({
      functionName: fn.name,
      taskRoot,
      handler: fn.handler,
      memoryMb: fn.memoryMb,
      environment: {
        ...atTaskRoot(fn.environment, taskRoot),
        ...this.options.environmentFor(fn),
        // The runtime's reserved variables: a template cannot set them.
        PATH: '/usr/local/bin:/usr/bin:/bin',
        LANG: 'en_US.UTF-8',
        TZ: ':UTC',
        TMPDIR: tmp,
        HOME: tmp,
        AWS_REGION: deployment.region,
        AWS_DEFAULT_REGION: deployment.region,
        AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
        AWS_LAMBDA_FUNCTION_NAME: fn.name,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
        AWS_ACCESS_KEY_ID: hosted.accessKeyId,
        AWS_SECRET_ACCESS_KEY: 'start-synth-local-secret',
        AWS_SESSION_TOKEN: 'start-synth-local-session',
      },
    });
    this.running.add(instance);
    this.options.logger.info({ function: fn.name, initMs: Math.round(instance.initMs) }, 'cold start');
    return instance;
  }

  /** The code asset, copied once outside the project: nothing resolves through its node_modules. */
  private async copyCode(fn: DeployedFunction): Promise<string> {
    const taskRoot = join(this.options.workDirectory, 'task', fn.name);
    await rm(taskRoot, { recursive: true, force: true });
    await cp(fn.codeDirectory, taskRoot, { recursive: true });
    return taskRoot;
  }

  async close(): Promise<void> {
    await Promise.all([...this.running].map((instance) => instance.stop()));
    this.running.clear();
    for (const hosted of this.hosted.values()) hosted.idle.length = 0;
  }
}

/** The template's paths into the code (`/var/task/...` on Lambda) pointed at this task root. */
function atTaskRoot(environment: Record<string, string>, taskRoot: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [
      name,
      value === LAMBDA_TASK_ROOT || value.startsWith(`${LAMBDA_TASK_ROOT}/`)
        ? taskRoot + value.slice(LAMBDA_TASK_ROOT.length)
        : value,
    ]),
  );
}
