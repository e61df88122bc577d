/**
 * /healthz tells the truth about a full store: `npm start` with its DATA_DIR on a small tmpfs that
 * is then filled to the last byte. Billed lookups fail closed (503, nothing charged) and /healthz
 * must say 503 too, so a load balancer stops sending billed work there; once space returns, both
 * recover without a restart. (Mounting a tmpfs needs root, which the test machines and CI run as.)
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, cli, type RunningServer, startServer } from '../support/processes.js';

const BILLED = '/v1/profiles/details/by-username?username=amelia-hartmann';

let mountPoint: string;
let server: RunningServer | undefined;

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'lookup-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
});
afterAll(async () => {
  await server?.stop();
  await cleanUpProcesses();
  execFileSync('umount', [mountPoint]);
  await rmdir(mountPoint);
});

/** Writes filler until the file system refuses a single byte more. */
async function fill(path: string): Promise<void> {
  for (const size of [1 << 20, 1 << 12, 1]) {
    for (let index = 0; ; index += 1) {
      try {
        await writeFile(join(path, `filler-${size}-${index}`), Buffer.alloc(size, 1), { flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
  }
}

async function statusOf(path: string, apiKey?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server?.url}${path}`, {
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
  });
  return { status: response.status, body: await response.json() };
}

describe('a store on a full disk', () => {
  it('is reported by /healthz as billing sees it, and both recover when space returns', {
    timeout: 90_000,
  }, async () => {
    const dataDir = join(mountPoint, 'data');
    server = await startServer(dataDir);
    const { accountId, apiKey } = await cli<{ accountId: string; apiKey: string }>(
      dataDir,
      ...['accounts', 'create', '--name', 'Full', '--credits', '100'],
    );
    expect((await statusOf(BILLED, apiKey)).status).toBe(200);
    expect((await statusOf('/healthz')).status).toBe(200);

    const fillers = join(mountPoint, 'fillers');
    await rm(fillers, { recursive: true, force: true });
    await mkdir(fillers);
    await fill(fillers);

    // Billing fails closed once its writes find no room (a few may still fit in the log's last page).
    let billed = await statusOf(BILLED, apiKey);
    for (let tries = 0; billed.status === 200 && tries < 50; tries += 1)
      billed = await statusOf(BILLED, apiKey);
    expect(billed.status).toBe(503);
    expect(billed.body).toMatchObject({ error: { code: 'service_unavailable', retryable: true } });
    const health = await statusOf('/healthz');
    expect(health).toMatchObject({ status: 503, body: { status: 'unavailable', store: 'unreachable' } });

    await rm(fillers, { recursive: true, force: true });
    expect(await statusOf('/healthz')).toMatchObject({ status: 200, body: { status: 'ok', store: 'ok' } });
    expect((await statusOf(BILLED, apiKey)).status).toBe(200);

    // Whatever billing refused cost nothing: the ledger explains the balance.
    await server.stop();
    server = undefined;
    const usage = await cli<{ balance: number; granted: number; recent: { status: string; cost: number }[] }>(
      dataDir,
      ...['usage', accountId, '--recent', '200'],
    );
    // (A settlement that found no room leaves its debit in flight, for reconcile to refund.)
    const held = usage.recent.filter((entry) => ['charged', 'pending'].includes(entry.status));
    expect(usage.balance).toBe(usage.granted - held.reduce((sum, entry) => sum + entry.cost, 0));
  });
});
