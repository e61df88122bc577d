/**
 * One Lambda execution environment on this machine: a fresh Node process running lambda-runtime.mjs
 * (the stand-in for Lambda's Node.js runtime) on a task root that holds the function's code asset and
 * nothing else, with exactly the environment it is given. `invoke` sends one event and answers what
 * the runtime would: the handler's result, what a response-streaming handler wrote, the handler's
 * error, or a timeout (the process is then killed, as Lambda ends an environment that timed out).
 * A process that dies is a crash: its pending invocation answers so, and the instance is finished.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const RUNTIME = fileURLToPath(new URL('./lambda-runtime.mjs', import.meta.url));
/** Lambda gives Node's heap most of the function's memory; the rest is the runtime's and buffers'. */
const HEAP_SHARE = 0.85;
/** How long a stopped runtime may take to end on its own before it is killed. */
const STOP_GRACE_MS = 2_000;

export interface LambdaInstanceOptions {
  /** AWS_LAMBDA_FUNCTION_NAME. */
  functionName: string;
  /** The code asset (LAMBDA_TASK_ROOT): read only, nothing above it to resolve modules from. */
  taskRoot: string;
  /** The template's Handler, `<module>.<export>`. */
  handler: string;
  /** The whole environment of the process (the template's variables and the runtime's). */
  environment: Record<string, string>;
  memoryMb: number;
  /**
   * Benchmarks only: what runs Node instead of this Node, handed Node's arguments (a script that
   * execs valgrind on Node, say), and how long the runtime may then take to end once let go.
   */
  launcher?: { execPath: string; stopGraceMs: number };
}

/** What one invocation came to, as the Invoke API would report it. */
export type Invocation =
  | { kind: 'result'; result: unknown; ms: number }
  | { kind: 'streamed'; contentType: string; body: Buffer; ms: number }
  | { kind: 'error'; errorType: string; errorMessage: string; ms: number }
  | { kind: 'timeout'; ms: number }
  /** `received`: whether the runtime had taken the event (else it never reached a live environment). */
  | { kind: 'crash'; errorMessage: string; received: boolean; ms: number };

interface RuntimeMessage {
  id?: number;
  type?: string;
  initMs?: number;
  result?: unknown;
  streamed?: { contentType: string; body: string };
  error?: string;
  ms?: number;
}

export class LambdaInitError extends Error {}

export class LambdaInstance {
  private next = 0;
  private readonly pending = new Map<number, (message: RuntimeMessage) => void>();
  private readonly received = new Set<number>();
  private output = { stdout: '', stderr: '' };
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly initMs: number,
    private readonly stopGraceMs: number,
  ) {}

  /** Starts the process and waits for the init phase (the import of the handler's module). */
  static async start(options: LambdaInstanceOptions): Promise<LambdaInstance> {
    const child = fork(RUNTIME, [], {
      ...(options.launcher ? { execPath: options.launcher.execPath } : {}),
      cwd: options.taskRoot,
      // Its own process group: stopping it also stops what it started (Chromium).
      detached: true,
      // Not the parent's flags (a TypeScript loader under tsx): Lambda starts plain Node.
      execArgv: [`--max-old-space-size=${Math.floor(options.memoryMb * HEAP_SHARE)}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...options.environment, LAMBDA_TASK_ROOT: options.taskRoot, _HANDLER: options.handler },
    });
    const output = { stdout: '', stderr: '' };
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
    const first = await Promise.race([
      once(child, 'message').then(([message]) => message as RuntimeMessage),
      once(child, 'exit').then(
        ([code]) => ({ type: 'exit', error: `exited with ${code}` }) as RuntimeMessage,
      ),
    ]);
    if (first.type !== 'ready') {
      killGroup(child);
      throw new LambdaInitError(`${options.functionName} failed at init: ${first.error}\n${output.stderr}`);
    }
    const instance = new LambdaInstance(
      child,
      first.initMs as number,
      options.launcher?.stopGraceMs ?? STOP_GRACE_MS,
    );
    instance.output = output;
    child.on('message', (message: RuntimeMessage) => {
      if (message.id === undefined) return;
      if (message.type === 'received') instance.received.add(message.id);
      else instance.pending.get(message.id)?.(message);
    });
    child.once('exit', (code, signal) => {
      instance.exited = true;
      for (const resolve of instance.pending.values())
        resolve({ error: `crash: exited (${signal ?? code})` });
    });
    return instance;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** False once the process ended (a crash, a timeout or stop): the host starts another. */
  get alive(): boolean {
    return !this.exited;
  }

  /** What the function wrote on stdout and stderr so far (its logs and EMF records). */
  logs(): { stdout: string; stderr: string } {
    return { ...this.output };
  }

  /** Sends `event`; after `timeoutMs` the environment is ended and the invocation is a timeout. */
  async invoke(event: unknown, timeoutMs: number): Promise<Invocation> {
    const begun = performance.now();
    const elapsed = () => performance.now() - begun;
    if (this.exited) {
      return { kind: 'crash', errorMessage: 'the environment had ended', received: false, ms: 0 };
    }
    const id = this.next++;
    let timer: NodeJS.Timeout | undefined;
    const answer = await new Promise<RuntimeMessage | 'timeout'>((resolve) => {
      this.pending.set(id, resolve);
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      // A channel that closed meanwhile (the process just died) is a crash, not an error event.
      this.child.send({ id, event, deadline: Date.now() + timeoutMs }, (error) => {
        if (error) resolve({ error: `crash: ${error.message}` });
      });
    });
    clearTimeout(timer);
    this.pending.delete(id);
    const received = this.received.delete(id);
    if (answer === 'timeout') {
      await this.kill();
      return { kind: 'timeout', ms: elapsed() };
    }
    const ms = answer.ms ?? elapsed();
    if (answer.error?.startsWith('crash: '))
      return { kind: 'crash', errorMessage: answer.error.slice(7), received, ms };
    if (answer.error !== undefined) {
      const errorType = /^(\w+)/.exec(answer.error)?.[1] ?? 'Error';
      return { kind: 'error', errorType, errorMessage: answer.error, ms };
    }
    if (answer.streamed) {
      return {
        kind: 'streamed',
        contentType: answer.streamed.contentType,
        body: Buffer.from(answer.streamed.body, 'base64'),
        ms,
      };
    }
    return { kind: 'result', result: answer.result, ms };
  }

  /**
   * Ends the environment: the runtime and what it started (Chromium), even after a crash. The
   * runtime is let go first (it exits when its channel closes), so a process ends as it would on its
   * own, writing what Node writes at exit (a `--cpu-prof` profile: BENCH_COLD_NODE_OPTIONS).
   */
  async stop(): Promise<void> {
    if (this.child.connected) {
      const exited = once(this.child, 'exit');
      this.child.disconnect();
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, this.stopGraceMs)))]);
      clearTimeout(grace);
    }
    await this.kill();
  }

  /** Kills the runtime and what it started at once, as Lambda ends an environment that timed out. */
  private async kill(): Promise<void> {
    const exited = this.exited ? Promise.resolve() : once(this.child, 'exit');
    killGroup(this.child);
    await exited;
  }
}

/**
 * Kills a process started detached and everything in its group; the group outlives a leader that
 * crashed, so it is signalled whether or not the leader is still there.
 */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing of the group is left.
  }
}
