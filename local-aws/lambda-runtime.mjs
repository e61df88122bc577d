/**
 * A stand-in for the Lambda Node.js runtime, run as a child process by lambda-instance.ts: imports the
 * module `_HANDLER` names (`index.handler`: index.mjs, .js or .cjs, export `handler`) from
 * LAMBDA_TASK_ROOT (the function's code asset alone: no node_modules above it), reports how long the
 * import (the init phase) took, then answers each event sent over IPC, as the runtime's invoke loop
 * does: a buffered handler's return value, or everything a response-streaming handler
 * (`awslambda.streamifyResponse`) wrote to its stream. The invoke finishes when the handler's promise settles and the stream has ended; the `awslambda`
 * global is awslambda-global.mjs's.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { installAwsLambdaGlobal, ResponseStream, STREAMING } from './awslambda-global.mjs';

const root = process.env.LAMBDA_TASK_ROOT;
const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
const [moduleName, exportName] = (process.env._HANDLER ?? 'index.handler').split(/\.(?=[^.]+$)/);
const memory = process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '1024';
installAwsLambdaGlobal();

function context(deadline = Date.now() + 30_000) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${name}`,
    memoryLimitInMB: memory,
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2025/11/23/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

/** A buffered handler's result, or `{ streamed: { contentType, body } }` (body in base64 for IPC). */
async function run(handler, event, deadline) {
  if (handler[STREAMING] !== 'response') return { result: await handler(event, context(deadline)) };
  const stream = new ResponseStream();
  const returned = handler(event, stream, context(deadline));
  if (typeof returned?.then !== 'function') throw new Error('Streaming does not support non-async handlers.');
  await returned;
  await finished(stream);
  return {
    streamed: { contentType: stream.contentType, body: Buffer.concat(stream.chunks).toString('base64') },
  };
}

const started = performance.now();
let handler;
try {
  const file = ['.mjs', '.js', '.cjs']
    .map((extension) => join(root, `${moduleName}${extension}`))
    .find(existsSync);
  if (!file) throw new Error(`Runtime.ImportModuleError: Cannot find module '${moduleName}' in ${root}`);
  const exported = (await import(pathToFileURL(file).href))[exportName];
  if (typeof exported !== 'function') {
    throw new Error(`Runtime.HandlerNotFound: ${moduleName}.${exportName} is undefined or not exported`);
  }
  handler = exported;
} catch (error) {
  process.send({ type: 'init-error', error: String(error?.stack ?? error) });
  process.disconnect();
}
if (handler) {
  process.send({ type: 'ready', initMs: performance.now() - started });
  process.on('message', async ({ id, event, deadline }) => {
    // The event reached a live environment: from here a crash is this invocation's.
    process.send({ id, type: 'received' });
    const begun = performance.now();
    try {
      process.send({ id, ...(await run(handler, event, deadline)), ms: performance.now() - begun });
    } catch (error) {
      process.send({ id, error: String(error?.stack ?? error), ms: performance.now() - begun });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
