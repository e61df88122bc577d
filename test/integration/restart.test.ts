/**
 * State survives a restart of `npm start`: a server process on a temporary DATA_DIR is stopped with
 * SIGTERM and started again on the same folder; the account, its balance, its keys and its ledger
 * must all still be there, and the key issued before the restart must still be accepted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cleanUpProcesses,
  cli,
  freshDataDir,
  type RunningServer,
  startServer,
  useStore,
} from '../support/processes.js';

afterAll(cleanUpProcesses);

// --- the test -------------------------------------------------------------------------------------

interface Usage {
  balance: number;
  totals: Record<string, { calls: number }>;
}

async function lookup(server: RunningServer, apiKey: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/emails/disposable?email=a%40b.com`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  await response.arrayBuffer();
  return response.status;
}

describe.each(['sqlite', 'dynamodb'] as const)(
  'a restart of the server on the same DATA_DIR (%s)',
  (store) => {
    let dataDir: string;
    let first: RunningServer;
    let second: RunningServer | undefined;
    beforeAll(async () => {
      useStore(store);
      dataDir = await freshDataDir();
      first = await startServer(dataDir);
    });
    afterAll(async () => {
      await first?.stop();
      await second?.stop();
      useStore('');
    });

    it('keeps accounts, balances, keys and the ledger, and the old key still works', {
      timeout: 90_000,
    }, async () => {
      const created = await cli<{ accountId: string; apiKey: string }>(
        dataDir,
        ...['accounts', 'create', '--name', 'Durable', '--credits', '40'],
      );
      const { accountId, apiKey } = created;
      await cli(dataDir, 'credits', 'grant', accountId, '2');
      expect(await lookup(first, apiKey)).toBe(200);
      expect(await lookup(first, apiKey)).toBe(200);
      // The usage record and the key's last use are written after the answer: wait for both.
      await vi.waitFor(
        async () => {
          const usage = await cli<Usage>(dataDir, 'usage', accountId);
          expect(usage.totals['emails.disposable']?.calls).toBe(2);
          const shown = await cli<{ keys: { lastUsedAt: string | null }[] }>(
            dataDir,
            'accounts',
            'show',
            accountId,
          );
          expect(shown.keys[0]?.lastUsedAt).not.toBeNull();
        },
        { timeout: 20_000, interval: 200 },
      );
      const before = {
        accounts: await cli(dataDir, 'accounts', 'list'),
        shown: await cli(dataDir, 'accounts', 'show', accountId),
        usage: await cli<Usage>(dataDir, 'usage', accountId),
      };
      expect(before.usage.balance).toBe(42);

      expect(await first.stop()).toBe(0);
      second = await startServer(dataDir);

      expect(await cli(dataDir, 'accounts', 'list')).toEqual(before.accounts);
      expect(await cli(dataDir, 'accounts', 'show', accountId)).toEqual(before.shown);
      expect(await cli(dataDir, 'usage', accountId)).toEqual(before.usage);
      expect(await lookup(second, apiKey)).toBe(200);
      // The demo account is found again, not created twice; each start replaces its key.
      expect(await lookup(second, first.demoKey)).toBe(401);
      expect(await lookup(second, second.demoKey)).toBe(200);
    });
  },
);
