/**
 * Structured JSON logs (pino): one line per request from each transport, plus warnings. Never log a
 * key or a token: request logs carry the account id and key id only. Redaction is the safety net
 * for a key that reaches a logged object anyway (a config, a request's headers).
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

/** Logs to stdout unless given another destination (tests read the lines back). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'apiKey',
        '*.apiKey',
        'UPSTREAM_API_KEY',
        '*.UPSTREAM_API_KEY',
        '*["x-api-key"]',
        '*.headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
