/**
 * Structured JSON logs (pino): one line per request from each transport, plus warnings. Never log a
 * key or a token: request logs carry the account id and key id only.
 */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['authorization', '*.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
  });
}
