/**
 * The upgrade path of a DATA_DIR written by the embedded DynamoDB (the default before SQLite): the
 * server refuses to start on the default store with a message naming the fix, `admin migrate`
 * copies accounts, keys, balances, the ledger (with the key behind each call), credit entries and
 * the audit log, and the server then serves the same keys.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, cli, freshDataDir, runCli, startServer, useStore } from '../support/processes.js';

afterAll(cleanUpProcesses);

interface Usage {
  balance: number;
  granted: number;
  totals: Record<string, Record<string, number>>;
  recent: { keyId?: string }[];
}

describe('a DATA_DIR holding embedded-DynamoDB data', () => {
  it('is refused by the SQLite store until `admin migrate` copied it, then served as it was', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await freshDataDir();
    useStore('dynamodb');
    const { accountId, apiKey, keyId } = await cli<{ accountId: string; apiKey: string; keyId: string }>(
      dataDir,
      ...['accounts', 'create', '--name', 'Old', '--credits', '30', '--reason', 'migrated customer'],
    );
    await cli(dataDir, 'credits', 'adjust', accountId, '5', '--reason', 'goodwill', '--actor', 'alice');
    await cli(dataDir, 'accounts', 'rename', accountId, '--name', 'Old Ltd', '--reason', 'legal name');
    const old = await startServer(dataDir);
    const lookup = await fetch(`${old.url}/v1/profiles/details/by-username?username=amelia-hartmann`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(lookup.status).toBe(200);
    expect(await old.stop()).toBe(0);
    const before = {
      usage: await cli<Usage>(dataDir, 'usage', accountId),
      shown: await cli(dataDir, 'accounts', 'show', accountId),
      history: await cli<{ entries: { action: string }[] }>(dataDir, 'accounts', 'history', accountId),
    };
    expect(before.usage.balance).toBeLessThan(35);
    expect(before.usage.recent.map((entry) => entry.keyId)).toEqual([keyId]);
    expect(before.history.entries.map((entry) => entry.action)).toEqual([
      'account.renamed',
      'credits.adjustment',
      'key.issued',
      'credits.grant',
      'account.created',
    ]);

    useStore('');
    await expect(startServer(dataDir)).rejects.toThrow(/npm run admin -- migrate/);
    const refused = await runCli(dataDir, ['accounts', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/npm run admin -- migrate/);

    expect(await cli(dataDir, 'migrate')).toMatchObject({
      // The account and the demo account `npm start` created, each with its key.
      accounts: 2,
      keys: 2,
      balances: 2,
      ledgerEntries: 1,
      inflight: 0,
      // Each account's opening grant, and the adjustment; each account's creation and first key, and the rename.
      creditEntries: 3,
      auditEntries: 5,
    });
    expect(await cli(dataDir, 'usage', accountId)).toEqual(before.usage);
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toEqual(before.shown);
    expect(await cli(dataDir, 'accounts', 'history', accountId)).toEqual(before.history);
    const migrated = await runCli(dataDir, ['migrate']);
    expect(migrated.code).toBe(1);
    expect(migrated.stderr).toMatch(/already holds 2 account/);

    const server = await startServer(dataDir);
    try {
      const again = await fetch(`${server.url}/v1/profiles/details/by-username?username=amelia-hartmann`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(again.status).toBe(200);
      expect(Number(again.headers.get('x-credits-remaining'))).toBe(
        before.usage.balance - (35 - before.usage.balance),
      );
    } finally {
      await server.stop();
    }
  });
});
