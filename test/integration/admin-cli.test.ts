/**
 * The operator CLI as operators run it: one child process per command, JSON on stdout and errors as
 * one JSON line on stderr, first on a DATA_DIR of its own (the CLI opens the SQLite store itself),
 * then beside a running `npm start` on each store (SQLite shared through WAL; the embedded DynamoDB,
 * whose folder the server locks, through its endpoint file), checking every change through the
 * server's HTTP API.
 */
import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../shared/auth/api-keys.js';
import type { CreditEntry, LedgerEntry } from '../../shared/billing/credit-ledger.js';
import { systemClock } from '../../shared/clock.js';
import { loadConfig } from '../../shared/config.js';
import { mountConsole } from '../../shared/console/mount-console.js';
import { mountAuthorizationServer } from '../../shared/oauth/mount-authorization-server.js';
import type { ConnectionRecord } from '../../shared/oauth/oauth-store.js';
import { createRepositories, type Repositories } from '../../shared/service.js';
import type { OpenedStore } from '../../shared/store/local-store.js';
import { openStore } from '../../shared/store/open-store.js';
import type { Store } from '../../shared/store/store.js';
import { authorizationUrl, pkce } from '../support/oauth-agent.js';
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
import { type ServedHarness, serveHarness } from '../support/served-harness.js';

afterAll(cleanUpProcesses);
// Every command is a process of its own, which takes seconds on a busy machine; tests run several,
// so tests on accounts of their own run side by side (at most vitest's maxConcurrency, 5, per block;
// the blocks without a server side by side too): a test's commands then wait behind the others'.
vi.setConfig({ testTimeout: 240_000 });

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
  dailyCreditCap?: number | null;
  monthlyCreditCap?: number | null;
}

interface IssuedKey extends KeyView {
  apiKey: string;
}

interface Usage {
  balance: number;
  granted: number;
  creditEntries: CreditEntry[];
  totals: Record<string, Record<string, number>>;
  recent: LedgerEntry[];
}

interface History {
  accountId: string;
  balance: number;
  granted: number;
  entries: ({ at: string; action: string; actor: string; reason?: string } & Record<string, unknown>)[];
}

/** The actor of a change made without `--actor`: the OS user running the CLI. */
const osActor = `cli:${userInfo().username}`;

const createAccount = (dataDir: string, ...options: string[]) =>
  cli<CreatedAccount>(dataDir, 'accounts', 'create', '--name', 'Acme', ...options);

/** The error a failed command printed: the whole of stderr is one line of JSON. */
function cliError(result: CliResult): { code: string; message: string } {
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  const printed = JSON.parse(result.stderr) as { error: { code: string; message: string } };
  expect(Object.keys(printed)).toEqual(['error']);
  return printed.error;
}

interface OperatorClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  native: boolean;
  createdAt: string;
  actor: string;
}

const noAccount = `${JSON.stringify({ error: { code: 'not_found', message: 'No account acct_missing.' } })}\n`;

// --- tests ----------------------------------------------------------------------------------------

describe.concurrent('without a server running, the CLI opens the store itself', () => {
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
      granted: 50,
      creditEntries: [
        {
          entryId: expect.stringMatching(/^crd_/),
          accountId: created.accountId,
          kind: 'grant',
          amount: 50,
          balance: 50,
          actor: osActor,
          createdAt: expect.stringMatching(/Z$/),
        },
      ],
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
          dailyCreditCap: null,
          monthlyCreditCap: null,
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
    expect(
      await cli(dataDir, 'credits', 'grant', accountId, '25', '--reason', 'annual plan', '--actor', 'alice'),
    ).toEqual({
      accountId,
      balance: 75,
      entry: expect.objectContaining({
        kind: 'grant',
        amount: 25,
        balance: 75,
        actor: 'cli:alice',
        reason: 'annual plan',
      }),
    });
    const listed = await cli<{ accountId: string; balance: number }[]>(dataDir, 'accounts', 'list');
    expect(listed.find((account) => account.accountId === accountId)?.balance).toBe(75);
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toMatchObject({ balance: 75 });
    expect(await cli(dataDir, 'usage', accountId)).toMatchObject({ balance: 75, granted: 75 });
  });

  it('adjusts credits by a signed amount with a reason, recorded with time, actor and reason', async () => {
    const { accountId } = await createAccount(dataDir, '--credits', '10', '--reason', 'trial');
    const taken = await cli<{ balance: number; entry: CreditEntry }>(
      dataDir,
      ...['credits', 'adjust', accountId, '-4', '--reason', 'duplicate grant', '--actor', 'alice'],
    );
    expect(taken).toEqual({
      accountId,
      balance: 6,
      entry: {
        entryId: expect.stringMatching(/^crd_/),
        accountId,
        kind: 'adjustment',
        amount: -4,
        balance: 6,
        actor: 'cli:alice',
        reason: 'duplicate grant',
        createdAt: expect.stringMatching(/Z$/),
      },
    });
    const given = await cli<{ balance: number }>(
      dataDir,
      'credits',
      'adjust',
      accountId,
      '+2',
      '--reason',
      'goodwill',
    );
    expect(given.balance).toBe(8);
    expect(await cli(dataDir, 'usage', accountId)).toMatchObject({ balance: 8, granted: 8 });

    const history = await cli<History>(dataDir, 'accounts', 'history', accountId);
    expect(history).toMatchObject({ accountId, balance: 8, granted: 8 });
    expect(history.entries.filter((entry) => entry.action.startsWith('credits.'))).toEqual([
      expect.objectContaining({
        action: 'credits.adjustment',
        amount: 2,
        actor: osActor,
        reason: 'goodwill',
      }),
      expect.objectContaining({
        action: 'credits.adjustment',
        amount: -4,
        actor: 'cli:alice',
        reason: 'duplicate grant',
      }),
      expect.objectContaining({ action: 'credits.grant', amount: 10, actor: osActor, reason: 'trial' }),
    ]);
    expect(history.entries.every((entry) => /^\d{4}-\d\d-\d\dT.*Z$/.test(entry.at))).toBe(true);
  });

  it('refuses an adjustment below 0 with insufficient_credits, and changes nothing', async () => {
    const { accountId } = await createAccount(dataDir, '--credits', '3');
    const before = await cli(dataDir, 'accounts', 'history', accountId);
    const result = await runCli(dataDir, ['credits', 'adjust', accountId, '-4', '--reason', 'too much']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(result)).toEqual({
      code: 'insufficient_credits',
      message: `Account ${accountId} has 3 credits; an adjustment of -4 would take it below 0. Nothing was changed.`,
    });
    expect(await cli(dataDir, 'accounts', 'history', accountId)).toEqual(before);
  });

  it('renames an account and changes its rate limit, recording before and after', async () => {
    const { accountId } = await createAccount(dataDir, '--rate-limit', '60', '--rate-window-seconds', '60');
    expect(
      await cli(dataDir, 'accounts', 'rename', accountId, '--name', 'Acme Ltd', '--reason', 'legal name'),
    ).toMatchObject({ accountId, name: 'Acme Ltd' });
    expect(await cli(dataDir, 'accounts', 'set-rate-limit', accountId, '--rate-limit', '120')).toMatchObject({
      rateLimit: { limit: 120, windowSeconds: 60 },
    });
    expect(
      await cli(
        dataDir,
        'accounts',
        'set-rate-limit',
        accountId,
        '--rate-window-seconds',
        '30',
        '--actor',
        'bob',
      ),
    ).toMatchObject({ rateLimit: { limit: 120, windowSeconds: 30 } });
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toMatchObject({
      name: 'Acme Ltd',
      rateLimit: { limit: 120, windowSeconds: 30 },
    });
    const { entries } = await cli<History>(dataDir, 'accounts', 'history', accountId);
    expect(entries.slice(0, 3)).toEqual([
      expect.objectContaining({
        action: 'account.rate_limit_changed',
        actor: 'cli:bob',
        details: {
          from: { rateLimit: { limit: 120, windowSeconds: 60 } },
          to: { rateLimit: { limit: 120, windowSeconds: 30 } },
        },
      }),
      expect.objectContaining({
        action: 'account.rate_limit_changed',
        actor: osActor,
        details: {
          from: { rateLimit: { limit: 60, windowSeconds: 60 } },
          to: { rateLimit: { limit: 120, windowSeconds: 60 } },
        },
      }),
      expect.objectContaining({
        action: 'account.renamed',
        actor: osActor,
        reason: 'legal name',
        details: { from: { name: 'Acme' }, to: { name: 'Acme Ltd' } },
      }),
    ]);
  });

  it('records suspensions, keys and OAuth links in the history, with --since and --until', async () => {
    const { accountId, keyId } = await createAccount(dataDir);
    const created = await cli<History>(dataDir, 'accounts', 'history', accountId);
    const start = created.entries.at(-1)?.at as string;
    await cli(dataDir, 'accounts', 'suspend', accountId, '--reason', 'unpaid invoice');
    await cli(dataDir, 'accounts', 'resume', accountId);
    const issued = await cli<IssuedKey>(
      dataDir,
      'keys',
      'issue',
      accountId,
      '--label',
      'ci',
      '--reason',
      'rotation',
    );
    await cli(dataDir, 'keys', 'revoke', accountId, keyId, '--reason', 'rotation');
    await cli(dataDir, 'accounts', 'link-oauth', accountId, '--subject', 'agent-9');
    await cli(dataDir, 'accounts', 'unlink-oauth', '--subject', 'agent-9', '--actor', 'carol');

    const { entries } = await cli<History>(dataDir, 'accounts', 'history', accountId);
    expect(entries.map((entry) => [entry.action, entry.actor, entry.reason, entry.details])).toEqual([
      ['oauth.unlinked', 'cli:carol', undefined, { subject: 'agent-9' }],
      ['oauth.linked', osActor, undefined, { subject: 'agent-9' }],
      ['key.revoked', osActor, 'rotation', { keyId }],
      ['key.issued', osActor, 'rotation', { keyId: issued.keyId }],
      ['account.resumed', osActor, undefined, { from: { status: 'suspended' }, to: { status: 'active' } }],
      [
        'account.suspended',
        osActor,
        'unpaid invoice',
        { from: { status: 'active' }, to: { status: 'suspended' } },
      ],
      ['key.issued', osActor, undefined, { keyId }],
      [
        'account.created',
        osActor,
        undefined,
        expect.objectContaining({ to: expect.objectContaining({ name: 'Acme' }) }),
      ],
    ]);
    const justAfter = (at: string) => new Date(Date.parse(at) + 1).toISOString();
    const since = await cli<History>(dataDir, 'accounts', 'history', accountId, '--since', justAfter(start));
    expect(since.entries).toEqual(entries.filter((entry) => entry.at > start));
    const until = await cli<History>(dataDir, 'accounts', 'history', accountId, '--until', justAfter(start));
    expect(until.entries).toEqual(entries.filter((entry) => entry.at <= start));
    expect(until.entries.at(-1)?.action).toBe('account.created');
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

  it('issues a key with daily and monthly credit caps and lists them; other keys have none', async () => {
    const { accountId, keyId: firstKeyId } = await createAccount(dataDir);
    const issued = await cli<IssuedKey>(
      dataDir,
      ...['keys', 'issue', accountId, '--daily-credit-cap', '10', '--monthly-credit-cap', '200'],
    );
    expect(issued).toMatchObject({ accountId, dailyCreditCap: 10, monthlyCreditCap: 200 });
    const listed = await cli<KeyView[]>(dataDir, 'keys', 'list', accountId);
    expect(listed.find((key) => key.keyId === issued.keyId)).toMatchObject({
      dailyCreditCap: 10,
      monthlyCreditCap: 200,
    });
    expect(listed.find((key) => key.keyId === firstKeyId)).toMatchObject({
      dailyCreditCap: null,
      monthlyCreditCap: null,
    });
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
    ['a zero daily credit cap', ['keys', 'issue', 'acct_x', '--daily-credit-cap', '0'], /"0"/],
    ['a fractional monthly credit cap', ['keys', 'issue', 'acct_x', '--monthly-credit-cap', '2.5'], /"2\.5"/],
    ['an unknown command', ['accounts', 'delete', 'acct_x'], /^unknown command 'delete'/],
    ['a missing argument', ['credits', 'grant', 'acct_x'], /missing required argument/],
    ['a zero adjustment', ['credits', 'adjust', 'acct_x', '0', '--reason', 'r'], /non-zero whole number/],
    ['a fractional adjustment', ['credits', 'adjust', 'acct_x', '-1.5', '--reason', 'r'], /"-1\.5"/],
    ['an adjustment without a reason', ['credits', 'adjust', 'acct_x', '5'], /--reason/],
    ['a blank reason', ['credits', 'grant', 'acct_x', '5', '--reason', ' '], /--reason/],
    ['a blank actor', ['accounts', 'suspend', 'acct_x', '--actor', ''], /--actor/],
    ['a blank new name', ['accounts', 'rename', 'acct_x', '--name', ' '], /--name/],
    ['a rate-limit change of nothing', ['accounts', 'set-rate-limit', 'acct_x'], /Give --rate-limit/],
    ['a zero new rate limit', ['accounts', 'set-rate-limit', 'acct_x', '--rate-limit', '0'], /"0"/],
    ['a time that is not ISO 8601', ['usage', 'acct_x', '--since', 'yesterday'], /--since.*ISO 8601/],
    [
      'a date-time without an offset',
      ['usage', 'acct_x', '--until', '2025-01-01T10:00:00'],
      /with Z or an offset/,
    ],
    ['a date that does not exist', ['accounts', 'history', 'acct_x', '--since', '2025-02-30'], /ISO 8601/],
    [
      'an empty time range',
      ['usage', 'acct_x', '--since', '2025-01-02', '--until', '2025-01-01T23:00:00Z'],
      /--since \(2025-01-02T00:00:00\.000Z\) must be before --until \(2025-01-01T23:00:00\.000Z\)/,
    ],
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

  it.each([
    'accounts show',
    'accounts suspend',
    'accounts resume',
    'accounts history',
    'accounts rename --name x',
    'accounts set-rate-limit --rate-limit 5',
    'keys list',
    'keys issue',
    'usage',
  ])('answers "%s" of an unknown account with "No account …" and exit code 1', async (command) => {
    const result = await runCli(dataDir, [...command.split(' '), 'acct_missing']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: noAccount });
  });

  it('answers a grant or a revoke on an unknown account with "No account …"', async () => {
    for (const args of [
      ['credits', 'grant', 'acct_missing', '5'],
      ['credits', 'adjust', 'acct_missing', '5', '--reason', 'r'],
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

describe('OAuth clients registered by the operator, and connections', () => {
  let dataDir: string;
  /** The built-in authorization server and console on the CLI's own store, as `npm start` serves them. */
  let served: ServedHarness;
  let repositories: Repositories;

  beforeAll(async () => {
    dataDir = await freshDataDir();
    // The CLI creates the SQLite file; the served harness then shares it through WAL.
    await cli(dataDir, 'accounts', 'list');
    served = await serveHarness({ endpoint: join(dataDir, 'lookup.sqlite'), clock: systemClock });
    mountConsole(served.harness, served.harness.store);
    mountAuthorizationServer(served.harness);
    repositories = served.harness.repositories;
  });
  afterAll(() => served?.close());

  /** Where the authorization server sends a browser asking on behalf of the client. */
  const authorize = async (clientId: string, redirectUri: string) => {
    const url = authorizationUrl(served.origin, {
      clientId,
      redirectUri,
      challenge: pkce().challenge,
      resource: `${served.origin}/mcp`,
    });
    const response = await fetch(url, { redirect: 'manual' });
    await response.arrayBuffer();
    return { status: response.status, location: response.headers.get('location') ?? '' };
  };
  /** The answer to a request from a client the server accepts: on to the console's connect page. */
  const toConsent = () => ({ status: 303, location: expect.stringMatching(/\/console\/connect\/[^/?]+$/) });

  const register = (...args: string[]) =>
    cli<{ clientId: string }>(dataDir, 'oauth', 'clients', 'register', ...args);
  const listClients = () => cli<OperatorClient[]>(dataDir, 'oauth', 'clients', 'list');

  it('registers a public client the authorization server accepts, lists it, and removes it', async () => {
    const redirectUris = ['https://agent.example/oauth/callback', 'http://localhost:7777/callback'];
    const registered = await register(
      ...['--name', 'Desk agent', '--redirect-uri', redirectUris[0] as string],
      ...['--redirect-uri', redirectUris[1] as string, '--reason', 'pilot customer'],
    );
    expect(registered).toEqual({
      clientId: expect.stringMatching(/^op_[A-Za-z0-9_-]{32,}$/),
      name: 'Desk agent',
      redirectUris,
      native: false,
      createdAt: expect.stringMatching(/Z$/),
      actor: osActor,
      reason: 'pilot customer',
    });
    const { clientId } = registered;
    expect((await listClients()).find((client) => client.clientId === clientId)).toEqual(registered);

    for (const redirectUri of redirectUris)
      expect(await authorize(clientId, redirectUri)).toEqual(toConsent());
    // Redirect URIs match exactly: another path, or another port for a client that is not native.
    expect(await authorize(clientId, 'https://agent.example/oauth/other')).not.toEqual(toConsent());
    expect(await authorize(clientId, 'http://localhost:7778/callback')).not.toEqual(toConsent());
    expect(await authorize(`op_${'x'.repeat(32)}`, redirectUris[0] as string)).toMatchObject({ status: 400 });

    expect(await cli(dataDir, 'oauth', 'clients', 'remove', clientId)).toEqual({ clientId, removed: true });
    expect((await listClients()).map((client) => client.clientId)).not.toContain(clientId);
    expect(await authorize(clientId, redirectUris[0] as string)).toMatchObject({ status: 400 });
    const again = await runCli(dataDir, ['oauth', 'clients', 'remove', clientId]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(again)).toEqual({
      code: 'not_found',
      message: `No client ${clientId} registered by the operator.`,
    });
  });

  it('lets a native client redirect to any port of its loopback redirect URI (RFC 8252)', async () => {
    const { clientId } = await register(
      '--name',
      'CLI agent',
      '--native',
      '--redirect-uri',
      'http://127.0.0.1/callback',
    );
    expect((await listClients()).find((client) => client.clientId === clientId)).toMatchObject({
      native: true,
    });
    expect(await authorize(clientId, 'http://127.0.0.1:53682/callback')).toEqual(toConsent());
    expect(await authorize(clientId, 'http://127.0.0.1:53682/elsewhere')).not.toEqual(toConsent());
  });

  // Side by side: a refused registration writes nothing the other refusals could see.
  it.concurrent.each([
    [
      'a redirect URI that is not an absolute URL',
      ['--redirect-uri', '/callback'],
      /"\/callback" is not an absolute URL/,
    ],
    ['a redirect URI with a fragment', ['--redirect-uri', 'https://agent.example/cb#top'], /fragment/],
    ['plain http to a host that is not loopback', ['--redirect-uri', 'http://agent.example/cb'], /https/],
    ['a custom scheme for a client that is not native', ['--redirect-uri', 'com.example.agent:/cb'], /https/],
    // Not one of the CLI's own rules: oidc-provider's validation of the metadata refuses it.
    [
      'a native client claiming https on loopback',
      ['--native', '--redirect-uri', 'https://127.0.0.1/cb'],
      /must not be using 127\.0\.0\.1/,
    ],
    ['no redirect URI', [], /--redirect-uri/],
  ])('refuses %s with invalid_argument', async (_, args, message) => {
    const result = await runCli(dataDir, ['oauth', 'clients', 'register', '--name', 'Refused', ...args]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(result)).toEqual({ code: 'invalid_argument', message: expect.stringMatching(message) });
  });

  it('registers nothing when one of the redirect URIs is refused', async () => {
    const before = await listClients();
    const uris = ['--redirect-uri', 'https://agent.example/cb', '--redirect-uri', 'http://agent.example/cb'];
    const refused = await runCli(dataDir, ['oauth', 'clients', 'register', '--name', 'Refused', ...uris]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(await listClients()).toEqual(before);
  });

  it("lists an account's connections and revokes one as the operator, deleting its tokens", async () => {
    const { accountId } = await createAccount(dataDir);
    const connection: ConnectionRecord = {
      connectionId: `grant-${accountId}`,
      accountId,
      clientId: 'https://agent.example/client.json',
      clientName: 'Research agent',
      scopes: ['profiles', 'emails'],
      dailyCreditCap: 40,
      createdAt: '2026-11-26T10:00:00.000Z',
      lastUsedAt: '2026-11-26T11:00:00.000Z',
      revokedAt: null,
      revokedReason: null,
    };
    await repositories.connections.insert(connection);
    const { connectionId } = connection;
    const kept = { expiresAt: Date.now() + 3_600_000 };
    await repositories.oauthState.put('Grant', connectionId, { payload: { accountId }, ...kept });
    await repositories.oauthState.put('RefreshToken', `rt-${accountId}`, {
      payload: { grantId: connectionId },
      ...kept,
    });

    const { accountId: _, ...shown } = connection;
    expect(await cli(dataDir, 'oauth', 'connections', 'list', '--account', accountId)).toEqual([shown]);

    const revoked = await cli<Record<string, unknown>>(
      dataDir,
      ...['oauth', 'connections', 'revoke', connectionId, '--reason', 'customer asked by phone'],
    );
    expect(revoked).toEqual({ ...shown, revokedAt: expect.stringMatching(/Z$/), revokedReason: 'operator' });
    expect(await repositories.connections.get(connectionId)).toMatchObject({ revokedReason: 'operator' });
    expect(await repositories.oauthState.find('Grant', connectionId, Date.now())).toBeUndefined();
    expect(await repositories.oauthState.find('RefreshToken', `rt-${accountId}`, Date.now())).toBeUndefined();
    expect(await cli(dataDir, 'oauth', 'connections', 'list', '--account', accountId)).toEqual([revoked]);

    const history = await cli<History>(dataDir, 'accounts', 'history', accountId);
    expect(history.entries[0]).toMatchObject({
      action: 'oauth.connection_revoked',
      actor: osActor,
      reason: 'customer asked by phone',
      details: { connectionId },
    });
    // A second revocation keeps the first time and reason, and records nothing more.
    expect(await cli(dataDir, 'oauth', 'connections', 'revoke', connectionId)).toEqual(revoked);
    expect((await cli<History>(dataDir, 'accounts', 'history', accountId)).entries).toEqual(history.entries);
  });

  it('answers an unknown client, connection or account with not_found', async () => {
    await register('--name', 'Listed agent', '--redirect-uri', 'https://agent.example/cb');
    // Registered by DCR, whose random ids may begin like the operator's: not the operator's to remove.
    const registeredByDcr = `op_dcr${Date.now()}`;
    await repositories.oauthState.put('Client', registeredByDcr, {
      payload: { client_id: registeredByDcr, redirect_uris: ['https://agent.example/cb'] },
      expiresAt: Date.UTC(9999, 0, 1),
    });
    const remove = await runCli(dataDir, ['oauth', 'clients', 'remove', registeredByDcr]);
    expect(remove).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(remove)).toMatchObject({ code: 'not_found' });
    expect(await repositories.oauthState.find('Client', registeredByDcr, Date.now())).toBeDefined();

    const revoke = await runCli(dataDir, ['oauth', 'connections', 'revoke', 'grant-missing']);
    expect(revoke).toMatchObject({ code: 1, stdout: '' });
    expect(cliError(revoke)).toEqual({ code: 'not_found', message: 'No connection grant-missing.' });
    const list = await runCli(dataDir, ['oauth', 'connections', 'list', '--account', 'acct_missing']);
    expect(list).toEqual({ code: 1, stdout: '', stderr: noAccount });
  });
});

describe.concurrent('help and failures before any command runs', () => {
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

    it.concurrent('provisions in the store the server uses: the server accepts the key the CLI printed', async () => {
      const { apiKey } = await createAccount(dataDir, '--credits', '10');
      expect((await lookup(apiKey)).status).toBe(200);
    });

    it.concurrent('revoked keys are refused and scoped keys reach only their families', async () => {
      const { accountId, apiKey, keyId } = await createAccount(dataDir);
      const profilesOnly = await cli<IssuedKey>(dataDir, 'keys', 'issue', accountId, '--scopes', 'profiles');
      expect((await lookup(profilesOnly.apiKey)).status).toBe(403);
      const emails = await cli<IssuedKey>(dataDir, 'keys', 'issue', accountId, '--scopes', 'emails');
      expect((await lookup(emails.apiKey)).status).toBe(200);

      await cli(dataDir, 'keys', 'revoke', accountId, keyId);
      expect((await lookup(apiKey)).status).toBe(401);
      expect((await lookup(emails.apiKey)).status).toBe(200);
    });

    it.concurrent('a suspended account is refused until it is resumed', async () => {
      const { accountId, apiKey } = await createAccount(dataDir);
      await cli(dataDir, 'accounts', 'suspend', accountId);
      expect((await lookup(apiKey)).status).toBe(403);
      await cli(dataDir, 'accounts', 'resume', accountId);
      expect((await lookup(apiKey)).status).toBe(200);
    });

    it.concurrent('reports usage per operation with the most recent ledger entries first', async () => {
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

    it.concurrent('shows the key behind each call in usage, and reads usage by --since and --until', async () => {
      const { accountId, apiKey, keyId } = await createAccount(dataDir, '--credits', '10');
      const second = await cli<IssuedKey>(dataDir, 'keys', 'issue', accountId);
      for (const key of [apiKey, second.apiKey]) expect((await lookup(key)).status).toBe(200);
      await vi.waitFor(async () => expect(await repositories.ledger.entries(accountId)).toHaveLength(2));

      const report = await cli<Usage>(dataDir, 'usage', accountId);
      expect(report.recent.map((entry) => entry.keyId)).toEqual([second.keyId, keyId]);
      const [newest, oldest] = report.recent as [LedgerEntry, LedgerEntry];
      const within = await cli<Usage>(dataDir, 'usage', accountId, '--since', newest.createdAt);
      expect(within.recent).toEqual([newest]);
      expect(within.totals).toEqual({
        'emails.disposable': { calls: 1, charged: 1, refunded: 0, pending: 0, credits: 0 },
      });
      const before = await cli<Usage>(dataDir, 'usage', accountId, '--until', newest.createdAt);
      expect(before.recent).toEqual(newest.createdAt === oldest.createdAt ? [] : [oldest]);
      const future = await cli<Usage>(dataDir, 'usage', accountId, '--since', '2999-01-01');
      expect(future).toMatchObject({
        since: '2999-01-01T00:00:00.000Z',
        balance: 10,
        totals: {},
        recent: [],
      });
    });

    it.concurrent('names the batch and item of a batch item’s entries in usage, in flight and free', async () => {
      const { accountId } = await createAccount(dataDir, '--credits', '10');
      const { ledger } = repositories;
      const admitted = await ledger.admit({
        accountId,
        requestId: 'req_cli_batch_billed',
        operation: 'profiles.details',
        cost: 1,
        rateLimit: { limit: 100, windowSeconds: 60 },
        transport: 'batch',
        batchItem: { batchId: 'bat_cli', index: 0 },
      });
      expect(admitted.outcome).toBe('admitted');
      await ledger.recordUsage(
        ledger.freeEntry({
          accountId,
          requestId: 'req_cli_batch_free',
          operation: 'emails.disposable',
          transport: 'batch',
          batchItem: { batchId: 'bat_cli', index: 1 },
        }),
      );

      const report = await cli<Usage>(dataDir, 'usage', accountId);
      const byId = new Map(report.recent.map((entry) => [entry.requestId, entry]));
      expect(byId.get('req_cli_batch_billed')).toMatchObject({
        status: 'pending',
        transport: 'batch',
        batchItem: { batchId: 'bat_cli', index: 0 },
      });
      expect(byId.get('req_cli_batch_free')).toMatchObject({
        status: 'charged',
        cost: 0,
        transport: 'batch',
        batchItem: { batchId: 'bat_cli', index: 1 },
      });
      // Settled, so the store-wide reconcile test below finds only its own debit in flight.
      if (admitted.outcome === 'admitted' && admitted.entry) await ledger.charge(admitted.entry, 200);
    });

    it.concurrent('a rate-limit change and a negative adjustment apply to the next request', async () => {
      const { accountId, apiKey } = await createAccount(dataDir, '--credits', '2', '--rate-limit', '50');
      const billed = () =>
        fetch(`${server.url}/v1/profiles/details/by-username?username=amelia-hartmann`, {
          headers: { Authorization: `Bearer ${apiKey}` },
        });
      expect((await lookup(apiKey)).headers.get('x-ratelimit-limit')).toBe('50');
      await cli(dataDir, 'accounts', 'set-rate-limit', accountId, '--rate-limit', '7', '--reason', 'abuse');
      expect((await lookup(apiKey)).headers.get('x-ratelimit-limit')).toBe('7');

      await cli(dataDir, 'credits', 'adjust', accountId, '-2', '--reason', 'chargeback');
      const refused = await billed();
      await refused.arrayBuffer();
      expect(refused.status).toBe(402);
      await cli(dataDir, 'credits', 'adjust', accountId, '2', '--reason', 'goodwill');
      const served = await billed();
      await served.arrayBuffer();
      expect(served.status).toBe(200);
      expect(served.headers.get('x-credits-remaining')).toBe('0');
    });

    // Not side by side with the others: `reconcile` settles every old-enough debit of the store.
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
