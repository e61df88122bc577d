/**
 * The bare Hono route of the HTTP benchmark, served as `npm start` serves the app (@hono/node-server
 * in its own process): the floor every figure of bench/http-load.ts is compared with.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().get('/bare', (c) =>
  c.json({ data: { domain: 'example.com', isDisposable: false }, meta: { creditCost: 0 } }),
);
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`Bare route listening on http://127.0.0.1:${info.port}\n`);
});
