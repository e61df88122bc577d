/**
 * The operator CLI as operators run it: one child process per command, JSON on stdout and errors as
 * one JSON line on stderr, first on a DATA_DIR of its own (the CLI opens the SQLite store itself),
 * then beside a running `npm start` on each store (SQLite shared through WAL; the embedded DynamoDB,
 * whose folder the server locks, through its endpoint file), checking every change through the
 * server's HTTP API.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../shared/auth/api-keys.js';
import type { LedgerEntry } from '../../shared/billing/credit-ledger.js';
import { loadConfig } from '../../shared/config.js';
import { createRepositories, type Repositories } from '../../shared/service.js';
import { type OpenedStore, openStore } from '../../shared/store/open-store.js';
import type { Store } from '../../shared/store/store.js';
import { pricedOperation } from '../support/priced-operation.js';
import {
  type CliResult,
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  runCli,
  startServer,
  useStore,
} from '../support/processes.js';

afterAll(cleanUpProcesses);

// --- shapes printed by the CLI ----------------------------------------------------------------

interface CreatedAccount {
  accountId: string;
  name: string;
  apiKey: string;
  keyId: string;
  balance: number;
}

interface KeyView {
  keyId: string;
  label: string | null;
  scopes: string[] | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

interface IssuedKey extends KeyView {
  apiKey: string;
}

interface Usage {
  balance: number;
  granted: number;
  totals: Record<string, Record<string, number>>;
  recent: LedgerEntry[];
}

const createAccount = (dataDir: string, ...options: string[]) =>
  cli<CreatedAccount>(dataDir, 'accounts', 'create', '--name', 'Acme', ...options);

/** The error a failed command printed: the whole of stderr is one line of JSON. */
function cliError(result: CliResult): { code: string; message: string } {
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  const printed = JSON.parse(result.stderr) as { error: { code: string; message: string } };
  expect(Object.keys(printed)).toEqual(['error']);
  return printed.error;
}

const noAccount = `${JSON.stringify({ error: { code: 'not_found', message: 'No account acct_missing.' } })}\n`;

// --- tests ----------------------------------------------------------------------------------------

describe('without a server running, the CLI opens the store itself', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await freshDataDir();
  });

  it('creates an account with its first key, then shows it with balance and keys but no hash', async () => {
    const created = await cli<CreatedAccount>(
      dataDir,
      ...['accounts', 'create', '--name', 'Acme', '--credits', '50', '--rate-limit', '5'],
      ...['--rate-window-seconds', '30', '--scopes', 'emails,profiles'],
    );
    expect(created).toEqual({
      accountId: expect.stringMatching(/^acct_[0-9a-f]{32}$/),
      name: 'Acme',
      status: 'active',
      rateLimit: { limit: 5, windowSeconds: 30 },
      balance: 50,
      apiKey: expect.stringMatching(/^lk_live_[A-Za-z0-9_-]{66}$/),
      keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/),
    });

    const shown = await cli<Record<string, unknown>>(dataDir, 'accounts', 'show', created.accountId);
    expect(shown).toEqual({
      accountId: created.accountId,
      name: 'Acme',
      status: 'active',
      rateLimit: { limit: 5, windowSeconds: 30 },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      balance: 50,
      keys: [
        {
          keyId: created.keyId,
          preview: `${created.apiKey.slice(0, 12)}…`,
          label: null,
          scopes: ['emails', 'profiles'],
          createdAt: expect.any(String),
          expiresAt: null,
          revokedAt: null,
          lastUsedAt: null,
        },
      ],
    });
    expect(JSON.stringify(shown)).not.toContain(hashApiKey(created.apiKey));
    expect(await cli(dataDir, 'accounts', 'list')).toContainEqual(
      expect.objectContaining({ accountId: created.accountId, name: 'Acme', balance: 50 }),
    );
  });

  it('takes the rate limit from DEFAULT_RATE_LIMIT and DEFAULT_RATE_WINDOW_SECONDS, and no credits', async () => {
    const result = await runCli(dataDir, ['accounts', 'create', '--name', 'Defaults'], {
      DEFAULT_RATE_LIMIT: '7',
      DEFAULT_RATE_WINDOW_SECONDS: '15',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      rateLimit: { limit: 7, windowSeconds: 15 },
      balance: 0,
    });
  });

  it('grants credits on top of the balance and counts them as granted', async () => {
    const { accountId } = await createAccount(dataDir, '--credits', '50');
    expect(await cli(dataDir, 'credits', 'grant', accountId, '25')).toEqual({ accountId, balance: 75 });
    const listed = await cli<{ accountId: string; balance: number }[]>(dataDir, 'accounts', 'list');
    expect(listed.find((account) => account.accountId === accountId)?.balance).toBe(75);
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toMatchObject({ balance: 75 });
    expect(await cli(dataDir, 'usage', accountId)).toMatchObject({ balance: 75, granted: 75 });
  });

  it('links an OAuth subject to one account, refuses it to another, and unlinks it', async () => {
    const { accountId } = await createAccount(dataDir);
    const { accountId: otherId } = await createAccount(dataDir);
    const link = (id: string) => ['accounts', 'link-oauth', id, '--subject', 'auth0|agent-7'];
    expect(await cli(dataDir, ...link(accountId))).toEqual({
      accountId,
      subject: 'auth0|agent-7',
      linked: true,
    });
    expect(await cli(dataDir, ...link(accountId))).toMatchObject({ linked: true });
    const refused = await runCli(dataDir, link(otherId));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/linked to another account/);
    const unlink = ['accounts', 'unlink-oauth', '--subject', 'auth0|agent-7'];
    expect(await cli(dataDir, ...unlink)).toEqual({ subject: 'auth0|agent-7', unlinked: true });
    expect(await cli(dataDir, ...unlink)).toEqual({ subject: 'auth0|agent-7', unlinked: false });
    expect(await cli(dataDir, ...link(otherId))).toMatchObject({ accountId: otherId, linked: true });
  });

  it('issues a key with scopes, expiry and label, lists it, and revokes it', async () => {
    const { accountId, keyId: firstKeyId } = await createAccount(dataDir);
    const issued = await cli<IssuedKey>(
      dataDir,
      ...['keys', 'issue', accountId, '--scopes', 'emails', '--label', 'ci'],
      ...['--expires-at', '2099-01-01T12:00:00+02:00'],
    );
    expect(issued).toMatchObject({
      accountId,
      apiKey: expect.stringMatching(/^lk_live_/),
      keyId: expect.stringMatching(/^key_/),
      label: 'ci',
      scopes: ['emails'],
      expiresAt: '2099-01-01T10:00:00.000Z',
      revokedAt: null,
    });

    const listed = await cli<KeyView[]>(dataDir, 'keys', 'list', accountId);
    expect(listed.map((key) => key.keyId).sort()).toEqual([firstKeyId, issued.keyId].sort());
    expect(listed.every((key) => !('keyHash' in key) && !('apiKey' in key))).toBe(true);

    const revoked = await cli<KeyView>(dataDir, 'keys', 'revoke', accountId, issued.keyId);
    expect(revoked).toMatchObject({ keyId: issued.keyId, revokedAt: expect.stringMatching(/Z$/) });
    const after = await cli<KeyView[]>(dataDir, 'keys', 'list', accountId);
    expect(after.find((key) => key.keyId === issued.keyId)?.revokedAt).toBe(revoked.revokedAt);
    expect(after.find((key) => key.keyId === firstKeyId)?.revokedAt).toBeNull();
  });

  it('suspends and resumes an account', async () => {
    const { accountId } = await createAccount(dataDir);
    expect(await cli(dataDir, 'accounts', 'suspend', accountId)).toMatchObject({
      accountId,
      status: 'suspended',
    });
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toMatchObject({ status: 'suspended' });
    expect(await cli(dataDir, 'accounts', 'resume', accountId)).toMatchObject({
      accountId,
      status: 'active',
    });
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toMatchObject({ status: 'active' });
  });

  it.each([
    ['a count with trailing letters', ['credits', 'grant', 'acct_x', '12abc'], /"12abc"/],
    ['a negative count', ['accounts', 'create', '--name', 'x', '--credits=-5'], /"-5"/],
    ['a fractional count', ['usage', 'acct_x', '--recent', '1.5'], /"1\.5"/],
    ['a count in exponent notation', ['credits', 'grant', 'acct_x', '1e3'], /"1e3"/],
    ['a zero grant', ['credits', 'grant', 'acct_x', '0'], /"0"/],
    ['a zero rate limit', ['accounts', 'create', '--name', 'x', '--rate-limit', '0'], /"0"/],
    ['a window over a day', ['accounts', 'create', '--name', 'x', '--rate-window-seconds', '86401'], /86401/],
    [
      'an unknown scope',
      ['accounts', 'create', '--name', 'x', '--scopes', 'emails,nope'],
      /Unknown scope "nope"/,
    ],
    ['a blank name', ['accounts', 'create', '--name', ' '], /--name/],
    ['an expiry that is not ISO 8601', ['keys', 'issue', 'acct_x', '--expires-at', 'tomorrow'], /ISO 8601/],
    ['an expiry in the past', ['keys', 'issue', 'acct_x', '--expires-at', '2020-01-01'], /not in the future/],
    ['an unknown command', ['accounts', 'delete', 'acct_x'], /^unknown command 'delete'/],
    ['a missing argument', ['credits', 'grant', 'acct_x'], /missing required argument/],
    ['no command at all', [], /A command is missing; --help lists the commands\./],
    ['a group without its command', ['keys'], /A command is missing/],
  ])('refuses %s with one JSON line on stderr and exit code 1', async (_, args, message) => {
    const result = await runCli(dataDir, args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(cliError(result)).toEqual({ code: 'invalid_argument', message: expect.stringMatching(message) });
  });

  it('creates nothing when an argument is refused', async () => {
    const refused = await runCli(dataDir, ['accounts', 'create', '--name', 'Refused', '--scopes', 'nope']);
    expect(refused.code).toBe(1);
    const accounts = await cli<{ name: string }[]>(dataDir, 'accounts', 'list');
    expect(accounts.map((account) => account.name)).not.toContain('Refused');
  });

  it.each(['accounts show', 'accounts suspend', 'accounts resume', 'keys list', 'keys issue', 'usage'])(
    'answers "%s" of an unknown account with "No account …" and exit code 1',
    async (command) => {
      const result = await runCli(dataDir, [...command.split(' '), 'acct_missing']);
      expect(result).toEqual({ code: 1, stdout: '', stderr: noAccount });
    },
  );

  it('answers a grant or a revoke on an unknown account with "No account …"', async () => {
    for (const args of [
      ['credits', 'grant', 'acct_missing', '5'],
      ['keys', 'revoke', 'acct_missing', 'key_0000000000000000'],
    ]) {
      expect(await runCli(dataDir, args)).toEqual({ code: 1, stdout: '', stderr: noAccount });
    }
  });

  it('answers a revoke of a key the account does not hold with "No key …"', async () => {
    const { accountId } = await createAccount(dataDir);
    const result = await runCli(dataDir, ['keys', 'revoke', accountId, 'key_0000000000000000']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(result)).toEqual({
      code: 'not_found',
      message: 'No key key_0000000000000000 on this account.',
    });
  });
});

describe('help and failures before any command runs', () => {
  it('--help names the settings the CLI reads, on stdout with exit code 0', async () => {
    for (const args of [['--help'], ['accounts', 'create', '--help']]) {
      const result = await runCli(await freshDataDir(), args);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: admin /);
      for (const setting of ['DATA_DIR', 'STORE', 'sqlite', 'DYNAMODB_ENDPOINT', 'DEFAULT_RATE_LIMIT']) {
        expect(result.stdout).toContain(setting);
      }
    }
  });

  it('names a bad variable as invalid_configuration', async () => {
    const result = await runCli(await freshDataDir(), ['accounts', 'list'], { DEFAULT_RATE_LIMIT: 'lots' });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(result)).toEqual({
      code: 'invalid_configuration',
      message: expect.stringMatching(/^Invalid configuration: DEFAULT_RATE_LIMIT: must be a whole number /),
    });
  });

  it('names DATA_DIR as store_unavailable when the store cannot be opened there', async () => {
    const file = join(await freshDataDir(), 'not-a-folder');
    await writeFile(file, '');
    const result = await runCli(file, ['accounts', 'list']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(result)).toEqual({
      code: 'store_unavailable',
      message: expect.stringMatching(new RegExp(`^Cannot open the store in DATA_DIR=${file} \\(`)),
    });
  });
});

describe.each(['sqlite', 'dynamodb'] satisfies Store['kind'][])(
  'beside a running server on the %s store',
  (store) => {
    let dataDir: string;
    let server: RunningServer;
    /** The test's own way in, through the server's endpoint file as the CLI finds it. */
    let direct: OpenedStore;
    let repositories: Repositories;

    const lookup = async (apiKey: string) => {
      const response = await fetch(`${server.url}/v1/emails/disposable?email=a%40b.com`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      await response.arrayBuffer();
      return response;
    };

    beforeAll(async () => {
      dataDir = await freshDataDir();
      // No key cache, so the server sees each CLI change on the next request.
      useStore(store);
      server = await startServer(dataDir, { KEY_CACHE_SECONDS: '0' });
      direct = await openStore(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', STORE: store }), 'cli');
      repositories = createRepositories(direct.store);
    });
    afterAll(async () => {
      await direct?.close();
      await server?.stop();
      useStore('');
    });

    it('provisions in the store the server uses: the server accepts the key the CLI printed', async () => {
      const { apiKey } = await createAccount(dataDir, '--credits', '10');
      expect((await lookup(apiKey)).status).toBe(200);
    });

    it('revoked keys are refused and scoped keys reach only their families', async () => {
      const { accountId, apiKey, keyId } = await createAccount(dataDir);
      const profilesOnly = await cli<IssuedKey>(dataDir, 'keys', 'issue', accountId, '--scopes', 'profiles');
      expect((await lookup(profilesOnly.apiKey)).status).toBe(403);
      const emails = await cli<IssuedKey>(dataDir, 'keys', 'issue', accountId, '--scopes', 'emails');
      expect((await lookup(emails.apiKey)).status).toBe(200);

      await cli(dataDir, 'keys', 'revoke', accountId, keyId);
      expect((await lookup(apiKey)).status).toBe(401);
      expect((await lookup(emails.apiKey)).status).toBe(200);
    });

    it('a suspended account is refused until it is resumed', async () => {
      const { accountId, apiKey } = await createAccount(dataDir);
      await cli(dataDir, 'accounts', 'suspend', accountId);
      expect((await lookup(apiKey)).status).toBe(403);
      await cli(dataDir, 'accounts', 'resume', accountId);
      expect((await lookup(apiKey)).status).toBe(200);
    });

    it('reports usage per operation with the most recent ledger entries first', async () => {
      const { accountId, apiKey } = await createAccount(dataDir, '--credits', '10');
      const requestIds: string[] = [];
      for (let call = 0; call < 3; call++) {
        const response = await lookup(apiKey);
        expect(response.status).toBe(200);
        requestIds.push(response.headers.get('x-request-id') as string);
      }
      // Free calls are recorded after the answer; wait until all three are written.
      await vi.waitFor(async () => expect(await repositories.ledger.entries(accountId)).toHaveLength(3));

      const report = await cli<Usage>(dataDir, 'usage', accountId);
      expect(report).toMatchObject({ accountId, balance: 10, granted: 10 });
      expect(report.totals).toEqual({
        'emails.disposable': { calls: 3, charged: 3, refunded: 0, pending: 0, credits: 0 },
      });
      expect(report.recent.map((entry) => entry.requestId)).toEqual(requestIds.toReversed());
      expect(report.recent[0]).toMatchObject({
        operation: 'emails.disposable',
        status: 'charged',
        httpStatus: 200,
      });

      const newest = await cli<Usage>(dataDir, 'usage', accountId, '--recent', '1');
      expect(newest.recent).toEqual(report.recent.slice(0, 1));
      expect(newest.totals).toEqual(report.totals);
    });

    it('reconciles a debit left pending by a crashed request, but not before the deadline has passed', async () => {
      const { accountId } = await createAccount(dataDir, '--credits', '10');
      // What a billed request leaves behind when its process dies between the debit and settlement.
      const requestId = `req_crashed_${accountId}`;
      expect(
        await repositories.ledger.admit({
          requestId,
          accountId,
          operation: pricedOperation.id,
          cost: 3,
          rateLimit: { limit: 10, windowSeconds: 60 },
        }),
      ).toMatchObject({ outcome: 'admitted', balance: 7 });

      expect(await cli(dataDir, 'reconcile')).toEqual({ settled: 0, entries: [] });
      expect((await cli<Usage>(dataDir, 'usage', accountId)).totals[pricedOperation.id]).toEqual({
        calls: 1,
        charged: 0,
        refunded: 0,
        pending: 1,
        credits: 0,
      });

      const reconciled = await cli<{ settled: number; entries: LedgerEntry[] }>(
        dataDir,
        ...['reconcile', '--older-than-seconds', '0'],
      );
      expect(reconciled).toEqual({
        settled: 1,
        entries: [
          expect.objectContaining({ requestId, status: 'refunded', refundReason: 'reconciled', cost: 3 }),
        ],
      });
      const report = await cli<Usage>(dataDir, 'usage', accountId);
      expect(report.balance).toBe(10);
      expect(report.totals[pricedOperation.id]).toEqual({
        calls: 1,
        charged: 0,
        refunded: 1,
        pending: 0,
        credits: 0,
      });
    });
  },
);
