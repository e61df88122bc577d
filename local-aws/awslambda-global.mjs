/**
 * The `awslambda` global of the Lambda Node.js runtime, where our handlers depend on it: the
 * streaming mark on the handler (`streamifyResponse`), and `HttpResponseStream.from` writing its
 * JSON metadata and eight NUL bytes before the first write (and only on a write: a stream ended
 * without one carries no metadata). Installed by lambda-runtime.mjs in each function's process, and
 * by tests that call a handler in their own.
 */
import { Writable } from 'node:stream';

export const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HTTP_INTEGRATION_RESPONSE = 'application/vnd.awslambda.http-integration-response';

/** The stream a response-streaming handler writes to; what it wrote is kept in `chunks`. */
export class ResponseStream extends Writable {
  chunks = [];
  contentType = 'application/octet-stream';
  written = false;
  _onBeforeFirstWrite = undefined;

  _write(chunk, _encoding, callback) {
    this.chunks.push(Buffer.from(chunk));
    callback();
  }

  write(chunk, ...rest) {
    if (!this.written && typeof this._onBeforeFirstWrite === 'function') {
      this._onBeforeFirstWrite((first) => super.write(first));
    }
    this.written = true;
    const data = typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : JSON.stringify(chunk);
    return super.write(data, ...rest);
  }

  setContentType(contentType) {
    if (this.written) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }
}

export function installAwsLambdaGlobal() {
  globalThis.awslambda = {
    streamifyResponse(handler) {
      handler[STREAMING] = 'response';
      return handler;
    },
    HttpResponseStream: {
      from(stream, metadata) {
        stream.setContentType(HTTP_INTEGRATION_RESPONSE);
        const prelude = JSON.stringify(metadata);
        stream._onBeforeFirstWrite = (write) => {
          write(prelude);
          write(new Uint8Array(8));
        };
        return stream;
      },
    },
  };
}
