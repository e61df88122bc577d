import { Writable } from 'node:stream';

/** The mark `awslambda.streamifyResponse` puts on a response-streaming handler. */
export declare const STREAMING: unique symbol;

/** The stream a response-streaming handler writes to; what it wrote is kept in `chunks`. */
export declare class ResponseStream extends Writable {
  chunks: Buffer[];
  contentType: string;
  setContentType(contentType: string): void;
}

/** Sets `globalThis.awslambda` as the Lambda Node.js runtime does. */
export declare function installAwsLambdaGlobal(): void;
