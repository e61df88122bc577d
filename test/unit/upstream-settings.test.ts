/**
 * The upstream settings: defaults, the two DATA_SOURCE=upstream cannot start without (each named),
 * and an UPSTREAM_URL that would carry a secret refused.
 */
import { expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { loadConfigOrExplain } from '../../shared/start-up-failure.js';

it('reads from the dataset by default, with a 4 s deadline and 16 requests in flight', () => {
  expect(loadConfig({})).toMatchObject({
    DATA_SOURCE: 'dataset',
    UPSTREAM_TIMEOUT_MS: 4000,
    UPSTREAM_MAX_IN_FLIGHT: 16,
  });
});

it('names UPSTREAM_URL and UPSTREAM_API_KEY when DATA_SOURCE=upstream lacks them', () => {
  expect(() => loadConfigOrExplain({ DATA_SOURCE: 'upstream' })).toThrow(
    /^Invalid configuration: UPSTREAM_URL: is required when DATA_SOURCE=upstream; UPSTREAM_API_KEY: is required when DATA_SOURCE=upstream\. Correct /,
  );
  expect(() => loadConfig({ DATA_SOURCE: 'upstream', UPSTREAM_URL: 'http://127.0.0.1:9' })).toThrow(
    /UPSTREAM_API_KEY: is required/,
  );
});

it('takes a base URL without its trailing slash', () => {
  const config = loadConfig({
    DATA_SOURCE: 'upstream',
    UPSTREAM_URL: 'https://data.example/shim/',
    UPSTREAM_API_KEY: 'k',
  });
  expect(config.UPSTREAM_URL).toBe('https://data.example/shim');
});

it.each([
  ['credentials', 'https://user:secret@data.example'],
  ['a query', 'https://data.example/?key=secret'],
  ['another scheme', 'ftp://data.example'],
])('refuses an UPSTREAM_URL with %s, without repeating it', (_, url) => {
  expect(() => loadConfig({ DATA_SOURCE: 'upstream', UPSTREAM_URL: url, UPSTREAM_API_KEY: 'k' })).toThrow(
    /^Invalid configuration: UPSTREAM_URL: must be/,
  );
  try {
    loadConfig({ DATA_SOURCE: 'upstream', UPSTREAM_URL: url, UPSTREAM_API_KEY: 'k' });
  } catch (error) {
    expect((error as Error).message).not.toContain('secret');
  }
});
