/**
 * The logger: pino's line format and levels, each redacted path censored without touching the
 * caller's object, errors serialized with their causes, and no logged value able to make it throw.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel, type LogLevelSetting } from '../../shared/logger.js';

function capture(level: LogLevelSetting) {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line) => lines.push(line) });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, parsed };
}

const LEVELS: ReadonlyArray<[LogLevel, number]> = [
  ['trace', 10],
  ['debug', 20],
  ['info', 30],
  ['warn', 40],
  ['error', 50],
  ['fatal', 60],
];

describe('createLogger', () => {
  it('writes one JSON line: level, time, the fields in their order, then the message', () => {
    const { logger, lines } = capture('info');
    const before = Date.now();
    logger.info({ requestId: 'req_1', status: 200 }, 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('}\n')).toBe(true);
    const line = JSON.parse(lines[0] ?? '');
    expect(Object.keys(line)).toEqual(['level', 'time', 'requestId', 'status', 'msg']);
    expect(line).toMatchObject({ level: 30, requestId: 'req_1', status: 200, msg: 'request' });
    expect(line.time).toBeGreaterThanOrEqual(before);
    expect(line.time).toBeLessThanOrEqual(Date.now());
  });

  it('takes a message alone, or fields alone', () => {
    const { logger, parsed } = capture('info');
    logger.warn('browser disconnected');
    logger.error({ messageId: 'm-1' });
    expect(parsed()).toEqual([
      { level: 40, time: expect.any(Number), msg: 'browser disconnected' },
      { level: 50, time: expect.any(Number), messageId: 'm-1' },
    ]);
  });

  it.each(LEVELS)('at level %s (%i) writes that level and the ones above it only', (level, number) => {
    const { logger, parsed } = capture(level);
    for (const [name] of LEVELS) logger[name]({ name }, 'line');
    expect(parsed().map((line) => line.level)).toEqual(LEVELS.map(([, n]) => n).filter((n) => n >= number));
    for (const [name, n] of LEVELS) expect(logger.isLevelEnabled(name)).toBe(n >= number);
    expect(logger.level).toBe(level);
  });

  it('writes nothing when silent', () => {
    const { logger, lines } = capture('silent');
    for (const [name] of LEVELS) logger[name]({ name }, 'line');
    expect(lines).toEqual([]);
    expect(LEVELS.some(([name]) => logger.isLevelEnabled(name))).toBe(false);
  });

  it.each([
    ['authorization', { authorization: 'Bearer sk_live_1' }],
    ['*.authorization', { headers: { authorization: 'Bearer sk_live_1' } }],
    ['apiKey', { apiKey: 'sk_live_1' }],
    ['*.apiKey', { account: { apiKey: 'sk_live_1' } }],
    ['UPSTREAM_API_KEY', { UPSTREAM_API_KEY: 'sk_live_1' }],
    ['*.UPSTREAM_API_KEY', { config: { UPSTREAM_API_KEY: 'sk_live_1' } }],
    ['*["x-api-key"]', { upstream: { 'x-api-key': 'sk_live_1' } }],
    ['*.headers["x-api-key"]', { request: { headers: { 'x-api-key': 'sk_live_1' } } }],
  ])('censors %s and leaves the logged object as it was', (_path, fields) => {
    const { logger, lines } = capture('info');
    const copy = structuredClone(fields);
    logger.info(fields, 'redaction');
    expect(lines[0]).not.toContain('sk_live_1');
    expect(lines[0]).toContain('"[redacted]"');
    expect(fields).toEqual(copy);
  });

  it('keeps the other fields, and leaks nothing, when a field is named __proto__ or constructor', () => {
    const { logger, lines, parsed } = capture('info');
    const fields = JSON.parse('{"__proto__": {"apiKey": "sk_live_1"}, "constructor": "x", "keyId": "key_2"}');
    logger.info(fields, 'names');
    expect(lines[0]).not.toContain('sk_live_1');
    expect(parsed()[0]).toMatchObject({ constructor: 'x', keyId: 'key_2', msg: 'names' });
  });

  it("serializes `err` as pino does: type, message and stack, with the causes' appended", () => {
    const { logger, parsed } = capture('info');
    const cause = new Error('connection reset');
    const error = new TypeError('upstream failed', { cause });
    logger.error({ err: error, requestId: 'req_2' }, 'settlement failed');
    const [line] = parsed();
    expect(line).toMatchObject({
      level: 50,
      requestId: 'req_2',
      msg: 'settlement failed',
      err: { type: 'TypeError', message: 'upstream failed: connection reset' },
    });
    const stack = (line?.err as { stack?: string } | undefined)?.stack;
    expect(stack).toContain('TypeError: upstream failed');
    expect(stack).toContain('caused by: Error: connection reset');
  });

  it("censors an error's own fields, such as the headers an upstream failure carries", () => {
    const { logger, lines, parsed } = capture('info');
    const error = Object.assign(new Error('upstream failed'), {
      headers: { 'x-api-key': 'sk_live_1', 'content-type': 'text/html' },
      apiKey: 'sk_live_1',
    });
    logger.error({ err: error }, 'upstream');
    expect(lines[0]).not.toContain('sk_live_1');
    expect(parsed()[0]).toMatchObject({
      err: {
        message: 'upstream failed',
        headers: { 'x-api-key': '[redacted]', 'content-type': 'text/html' },
      },
    });
  });

  it('logs a thrown value that is not an Error as it is', () => {
    const { logger, parsed } = capture('info');
    logger.warn({ err: 'socket hang up' }, 'odd throw');
    expect(parsed()[0]).toMatchObject({ err: 'socket hang up', msg: 'odd throw' });
  });

  it('never throws on a cycle or a BigInt', () => {
    const { logger, lines, parsed } = capture('info');
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    logger.info({ cyclic, credits: 10n }, 'odd values');
    expect(lines[0]).toContain('"self":"[Circular]"');
    expect(parsed()[0]).toMatchObject({ cyclic: { name: 'loop' }, credits: 10, msg: 'odd values' });
  });
});
