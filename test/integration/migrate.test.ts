/**
 * The upgrade path of a DATA_DIR written by the embedded DynamoDB (the default before SQLite): the
 * server refuses to start on the default store with a message naming the fix, `admin migrate`
 * copies accounts, keys, balances and the ledger, and the server then serves the same keys.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, cli, freshDataDir, runCli, startServer, useStore } from '../support/processes.js';

afterAll(cleanUpProcesses);

interface Usage {
  balance: number;
  granted: number;
  totals: Record<string, Record<string, number>>;
}

describe('a DATA_DIR holding embedded-DynamoDB data', () => {
  it('is refused by the SQLite store until `admin migrate` copied it, then served as it was', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await freshDataDir();
    useStore('dynamodb');
    const { accountId, apiKey } = await cli<{ accountId: string; apiKey: string }>(
      dataDir,
      ...['accounts', 'create', '--name', 'Old', '--credits', '30'],
    );
    const old = await startServer(dataDir);
    const lookup = await fetch(`${old.url}/v1/profiles/details/by-username?username=amelia-hartmann`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(lookup.status).toBe(200);
    expect(await old.stop()).toBe(0);
    const before = {
      usage: await cli<Usage>(dataDir, 'usage', accountId),
      shown: await cli(dataDir, 'accounts', 'show', accountId),
    };
    expect(before.usage.balance).toBeLessThan(30);

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
    });
    expect(await cli(dataDir, 'usage', accountId)).toEqual(before.usage);
    expect(await cli(dataDir, 'accounts', 'show', accountId)).toEqual(before.shown);
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
        before.usage.balance - (30 - before.usage.balance),
      );
    } finally {
      await server.stop();
    }
  });
});
