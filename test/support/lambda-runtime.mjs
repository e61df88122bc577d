/**
 * A stand-in for the Lambda Node.js runtime, run as a child process by lambda-process.ts: imports
 * index.mjs from LAMBDA_TASK_ROOT (the function's code asset copied alone to a temp folder: no
 * node_modules above it), reports how long the import (the init phase) took, then answers each event
 * sent over IPC with the handler's result, as the runtime's invoke loop does.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.LAMBDA_TASK_ROOT;
const name = process.env.AWS_LAMBDA_FUNCTION_NAME;

function context() {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2025/11/23/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => 30_000,
  };
}

const started = performance.now();
let handler;
try {
  ({ handler } = await import(pathToFileURL(join(root, 'index.mjs')).href));
} catch (error) {
  process.send({ type: 'init-error', error: String(error?.stack ?? error) });
  process.disconnect();
}
if (handler) {
  process.send({ type: 'ready', initMs: performance.now() - started });
  process.on('message', async ({ id, event }) => {
    const begun = performance.now();
    try {
      const result = await handler(event, context());
      process.send({ id, result, ms: performance.now() - begun });
    } catch (error) {
      process.send({ id, error: String(error?.stack ?? error), ms: performance.now() - begun });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
