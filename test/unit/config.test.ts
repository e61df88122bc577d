/**
 * The settings as `loadConfig` reads them: defaults (written beside schemas that are made only for a
 * variable that is set), parsing, refusals that name the variable, and defaults never shared.
 */
import { describe, expect, it } from 'vitest';
import { type Config, ConfigError, loadConfig, settingNames } from '../../shared/config.js';

/** A setting's value as the text of its variable: what an operator would write to set it to that. */
function asVariable(value: unknown): string {
  if (value instanceof Set) return [...value].join(',');
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

describe('loadConfig', () => {
  it('gives every unset setting its documented default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 8787,
      PUBLIC_BASE_URL: 'http://127.0.0.1:8787',
      STORE: 'sqlite',
      LOG_LEVEL: 'info',
      KEY_CACHE_SECONDS: 10,
      WEBSITE_RESPECT_ROBOTS: true,
      GATEWAY_MCP_ENABLED: true,
      PRICE_OVERRIDES: {},
      MCP_REJECTED_HOSTS: [],
      WEBHOOK_RETRY_SCHEDULE_SECONDS: [5, 30, 120, 600, 1800, 7200, 28800],
      UNSAFE_SMTP_ALLOW_HOSTS: new Set(),
      DATA_SOURCE: 'dataset',
      BATCH_POLL_MS: 500,
    });
    expect(config.UNSUPPORTED_EMAIL_DOMAINS).toContain('yahoo.com');
    expect(config.DATASET).toBeUndefined();
    expect(Object.keys(config)).toEqual(settingNames);
  });

  it('reads an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' })).toEqual(loadConfig({}));
  });

  // Defaults are written apart from the schemas (which are made only for a variable that is set), so
  // each default must be a value its own variable could be set to: set to it, nothing changes.
  const defaulted = settingNames.filter((name) => loadConfig({})[name as keyof Config] !== undefined);
  it.each(defaulted)('takes %s set to its default as the default', (name) => {
    const defaults = loadConfig({});
    expect(loadConfig({ [name]: asVariable(defaults[name as keyof Config]) })).toEqual(defaults);
  });

  it.each([
    ['PORT', '8080', 8080],
    ['DATASET_READER_THREADS', '3', 3],
    ['LOG_LEVEL', 'debug', 'debug'],
    ['WEBSITE_RESPECT_ROBOTS', 'false', false],
    ['PRICE_OVERRIDES', '{"emails.verify":3}', { 'emails.verify': 3 }],
    ['DNS_SERVERS', ' 1.1.1.1 ,, 9.9.9.9:53 ', ['1.1.1.1', '9.9.9.9:53']],
    ['MCP_REJECTED_HOSTS', 'Proxy.Example.COM.:443', ['proxy.example.com']],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '0.05,2', [0.05, 2]],
    ['UNSAFE_WEBSITE_ALLOW_HOSTS', '127.0.0.1:8080', new Set(['127.0.0.1:8080'])],
    ['PUBLIC_BASE_URL', 'https://api.example.com/base/', 'https://api.example.com/base'],
  ])('parses %s=%j', (name, text, value) => {
    expect(loadConfig({ [name]: text })[name as keyof Config]).toEqual(value);
  });

  it.each([
    ['PORT', '65536', 'PORT: must be a whole number from 0 to 65535'],
    ['PORT', '80.5', 'PORT: must be a whole number from 0 to 65535'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL: '],
    ['PRICE_OVERRIDES', '{"emails.verify":-1}', 'PRICE_OVERRIDES.emails.verify: '],
    ['PRICE_OVERRIDES', 'not json', 'PRICE_OVERRIDES: must be a JSON object'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', ',', 'WEBHOOK_RETRY_SCHEDULE_SECONDS: must list at least one pause'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '5,0', 'WEBHOOK_RETRY_SCHEDULE_SECONDS.1: must be seconds above 0'],
    ['MCP_REJECTED_HOSTS', 'a b', 'MCP_REJECTED_HOSTS: "a b" is not a host name'],
    ['UNSAFE_SMTP_ALLOW_HOSTS', 'localhost', 'UNSAFE_SMTP_ALLOW_HOSTS: allow-hosts entry "localhost"'],
    ['SERVICE_DOMAIN', 'nodots', 'SERVICE_DOMAIN: must be a domain name'],
    ['UPSTREAM_URL', 'https://user:pw@up.example', 'UPSTREAM_URL: must be a base URL without credentials'],
  ])('refuses %s=%j naming it', (name, text, message) => {
    expect(() => loadConfig({ [name]: text })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: text })).toThrow(`Invalid configuration: ${message}`);
  });

  it('names every bad variable at once, in declaration order', () => {
    expect(() => loadConfig({ SMTP_PORT: '0', PORT: 'x' })).toThrow(
      /^Invalid configuration: PORT: must be a whole number from 0 to 65535; SMTP_PORT: must be a whole number from 1 to 65535$/,
    );
  });

  it('gives each configuration its own copy of a default', () => {
    const first = loadConfig({});
    first.WEBHOOK_RETRY_SCHEDULE_SECONDS.push(1);
    first.UNSUPPORTED_EMAIL_DOMAINS.length = 0;
    first.PRICE_OVERRIDES['emails.verify'] = 9;
    const second = loadConfig({});
    expect(second.WEBHOOK_RETRY_SCHEDULE_SECONDS).toHaveLength(7);
    expect(second.UNSUPPORTED_EMAIL_DOMAINS).toContain('yahoo.com');
    expect(second.PRICE_OVERRIDES).toEqual({});
  });
});
