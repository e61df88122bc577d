/**
 * `npm start`: the whole service in one process on http://HOST:PORT, with the embedded DynamoDB
 * under DATA_DIR, and a demo account whose fresh key is printed at every start.
 */
import { serve } from '@hono/node-server';
import { provisionAccount } from '../../shared/accounts/provisioning.js';
import { loadConfig } from '../../shared/config.js';
import { mountMcp } from '../../shared/mcp/mount-mcp.js';
import { createAllRunners } from '../../shared/operations/index.js';
import { createService, type Repositories } from '../../shared/service.js';
import { openStore } from '../../shared/store/open-store.js';

const DEMO_ACCOUNT_NAME = 'demo';
const DEMO_KEY_LABEL = 'demo key (npm start)';

const config = loadConfig();
const opened = await openStore(config, 'server');
const service = createService({
  config,
  store: opened.store,
  runners: createAllRunners,
  documentation: true,
});
mountMcp(service);
const demoKey = await issueDemoKey(service.repositories);

const server = serve({ fetch: service.app.fetch, hostname: config.HOST, port: config.PORT }, (info) => {
  const base = `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`;
  process.stdout.write(
    [
      '',
      `Lookup service listening on ${base}`,
      `  state:     ${opened.location}`,
      `  reference: ${base}/docs  (OpenAPI: ${base}/openapi.json)`,
      `  MCP:       ${base}/mcp  (the same key as a bearer token)`,
      '',
      `Demo API key (account "${DEMO_ACCOUNT_NAME}", replaced at every start):`,
      `  ${demoKey}`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer ${demoKey}" "${base}/v1/emails/disposable?email=someone%40mailinator.com"`,
      '',
    ].join('\n'),
  );
});

/** Revokes the previous demo key and issues a new one; creates the demo account the first time. */
async function issueDemoKey(repositories: Repositories): Promise<string> {
  const existing = (await repositories.accounts.list()).find((account) => account.name === DEMO_ACCOUNT_NAME);
  if (!existing) {
    const created = await provisionAccount(repositories, {
      name: DEMO_ACCOUNT_NAME,
      credits: config.DEMO_ACCOUNT_CREDITS,
      rateLimit: { limit: config.DEFAULT_RATE_LIMIT, windowSeconds: config.DEFAULT_RATE_WINDOW_SECONDS },
      keyLabel: DEMO_KEY_LABEL,
    });
    return created.apiKey;
  }
  for (const key of await repositories.keys.list(existing.accountId)) {
    if (key.label === DEMO_KEY_LABEL && !key.revokedAt)
      await repositories.keys.revoke(existing.accountId, key.keyId);
  }
  const { apiKey } = await repositories.keys.issue(existing.accountId, { label: DEMO_KEY_LABEL });
  return apiKey;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close(async () => {
      await opened.close();
      process.exit(0);
    });
    // Idle keep-alive connections would hold the close open.
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}
