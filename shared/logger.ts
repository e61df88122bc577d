/**
 * Structured JSON logs: one line per request from each transport, plus warnings. Never log a key or a
 * token: request logs carry the account id and key id only. Redaction is the safety net for a key
 * that reaches a logged object anyway (a config, a request's headers).
 *
 * The lines are pino's (`{"level":30,"time":…,…fields,"msg":…}`, its numeric levels and its `err`
 * serializer), written by pino's own parts: @pinojs/redact, pino-std-serializers and
 * safe-stable-stringify. pino itself is not loaded: its transports (worker threads, thread-stream,
 * sonic-boom) cost every Lambda function 12 ms at each cold start, and a line to stdout needs none
 * of them (docs/benchmarks.md, "fifth pass").
 */
import redactor from '@pinojs/redact';
import { err as serializeError } from 'pino-std-serializers';
import { configure } from 'safe-stable-stringify';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type LogLevelSetting = LogLevel | 'silent';

/** Where the lines go: stdout, or a sink a test reads back. */
export interface LogDestination {
  write(line: string): void;
}

export type LogFields = Readonly<Record<string, unknown>>;

export interface LogMethod {
  (fields: LogFields, message?: string): void;
  (message: string): void;
}

export type Logger = Readonly<Record<LogLevel, LogMethod>> & {
  readonly level: LogLevelSetting;
  isLevelEnabled(level: LogLevel): boolean;
};

/** pino's numbers, which log queries and alarms already filter on (50 is error). */
const LEVEL_NUMBERS: Readonly<Record<LogLevelSetting, number>> = {
  fatal: 60,
  error: 50,
  warn: 40,
  info: 30,
  debug: 20,
  trace: 10,
  silent: Number.POSITIVE_INFINITY,
};

const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'apiKey',
  '*.apiKey',
  'UPSTREAM_API_KEY',
  '*.UPSTREAM_API_KEY',
  '*["x-api-key"]',
  '*.headers["x-api-key"]',
];

/** A copy of the fields with every redacted path censored; the caller's object is left alone. */
const redactPaths = redactor({
  paths: REDACTED_PATHS,
  censor: '[redacted]',
  serialize: false,
  strict: false,
});

/** The paths that name a top-level field; every other path reaches into an object. */
const REDACTED_FIELDS = new Set(REDACTED_PATHS.filter((path) => /^\w+$/.test(path)));

/**
 * The request line, every request's, is flat and names no redacted field: it needs no copy, which
 * would be most of the time spent writing it (7 of 12 µs).
 */
function redact(fields: LogFields): LogFields {
  for (const name of Object.keys(fields)) {
    const value = fields[name];
    if (REDACTED_FIELDS.has(name) || (typeof value === 'object' && value !== null)) {
      return redactPaths(fields) as LogFields;
    }
  }
  return fields;
}

/** Field order kept as written; a cycle or a BigInt becomes text rather than an exception. */
const safeStringify = configure({ deterministic: false });

function stringify(line: object): string {
  try {
    return JSON.stringify(line);
  } catch {
    return safeStringify(line) ?? '{}';
  }
}

const stdout: LogDestination = { write: (line) => process.stdout.write(line) };

/** Logs to stdout unless given another destination (tests read the lines back). */
export function createLogger(level: LogLevelSetting, destination: LogDestination = stdout): Logger {
  const threshold = LEVEL_NUMBERS[level];
  const method = (name: LogLevel): LogMethod => {
    const number = LEVEL_NUMBERS[name];
    if (number < threshold) return () => {};
    return (fieldsOrMessage: LogFields | string, message?: string) => {
      const given = typeof fieldsOrMessage === 'string' ? {} : fieldsOrMessage;
      const text = typeof fieldsOrMessage === 'string' ? fieldsOrMessage : message;
      // Serialized before redaction: an error's own fields (an upstream's headers) are censored too.
      const fields = given.err === undefined ? given : { ...given, err: serializeError(given.err as Error) };
      const line = {
        level: number,
        time: Date.now(),
        ...redact(fields),
        ...(text === undefined ? {} : { msg: text }),
      };
      destination.write(`${stringify(line)}\n`);
    };
  };
  return {
    level,
    isLevelEnabled: (name) => LEVEL_NUMBERS[name] >= threshold,
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
  };
}
