/**
 * The bare route of bench/bare-server.ts plus the least a metered call must do before it answers:
 * one ledger row, written through the store's own group commit (shared/store/sqlite/database.ts,
 * the same file and settings as `npm start`'s SQLite store) and committed before the answer is sent.
 * bench/http-load.ts loads it beside the bare route, so the service's figures can be read against
 * what a durable record of each call costs by itself. DATA_DIR: the folder of its database.
 */
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { newRequestId } from '../shared/pipeline/public-response.js';
import { Database } from '../shared/store/sqlite/database.js';
import { insertLedger } from '../shared/store/sqlite/sqlite-billing.js';

const database = new Database(join(process.env.DATA_DIR ?? '.data', 'durable-route.sqlite'), {
  backgroundCheckpoints: true,
});

const app = new Hono().get('/durable', async (c) => {
  const requestId = newRequestId();
  await database.write(() =>
    insertLedger(
      database,
      {
        requestId,
        accountId: 'acct_bench',
        operation: 'emails.disposable',
        cost: 0,
        transport: 'rest',
        status: 'charged',
        httpStatus: 200,
        createdAt: new Date().toISOString(),
      },
      'REPLACE',
    ),
  );
  return c.json({ data: { domain: 'example.com', isDisposable: false }, meta: { creditCost: 0 } });
});
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`Durable route listening on http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => {
  database.close();
  process.exit(0);
});
