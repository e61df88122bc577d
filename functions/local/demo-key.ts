/**
 * What `npm start` and `npm run start:synth` print and provision the same way: a demo account whose
 * key is replaced at every start (the previous one revoked), and the banner with the key and the
 * addresses, which clients and tests read.
 */
import type { AddressInfo } from 'node:net';
import type { Attribution } from '../../shared/accounts/accounts.js';
import { issueKey, provisionAccount, revokeKey } from '../../shared/accounts/provisioning.js';
import type { Config } from '../../shared/config.js';
import type { Repositories } from '../../shared/service.js';

const DEMO_ACCOUNT_NAME = 'demo';
/** Who the demo account's audit log names for its creation and key rotations. */
const DEMO: Attribution = { actor: 'system:demo-key' };

/** Revokes the previous demo key and issues a new one; creates the demo account the first time. */
export async function issueDemoKey(
  repositories: Repositories,
  config: Pick<Config, 'DEMO_ACCOUNT_CREDITS' | 'DEFAULT_RATE_LIMIT' | 'DEFAULT_RATE_WINDOW_SECONDS'>,
  command: string,
): Promise<string> {
  const label = `demo key (${command})`;
  const existing = (await repositories.accounts.list()).find((account) => account.name === DEMO_ACCOUNT_NAME);
  if (!existing) {
    const created = await provisionAccount(repositories, {
      name: DEMO_ACCOUNT_NAME,
      credits: config.DEMO_ACCOUNT_CREDITS,
      rateLimit: { limit: config.DEFAULT_RATE_LIMIT, windowSeconds: config.DEFAULT_RATE_WINDOW_SECONDS },
      keyLabel: label,
      by: DEMO,
    });
    return created.apiKey;
  }
  for (const key of await repositories.keys.list(existing.accountId)) {
    if (key.label === label && !key.revokedAt)
      await revokeKey(repositories, existing.accountId, key.keyId, DEMO);
  }
  const { apiKey } = await issueKey(repositories, existing.accountId, { label }, DEMO);
  return apiKey;
}

export const baseUrlOf = (info: AddressInfo) =>
  `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`;

export function banner(options: {
  base: string;
  state: string;
  data: string;
  demoKey: string;
  title?: string;
}): string {
  const { base, demoKey } = options;
  return [
    '',
    `${options.title ?? 'Lookup service'} listening on ${base}`,
    `  state:     ${options.state}`,
    `  data:      ${options.data}`,
    `  reference: ${base}/docs  (OpenAPI: ${base}/openapi.json)`,
    `  MCP:       ${base}/mcp  (the same key as a bearer token, or an agent's OAuth sign-in)`,
    `  v2:        ${base}/api/v2/...  (the same key in X-API-Key)`,
    `  console:   ${base}/console  (sign in with the key)`,
    '',
    `Demo API key (account "${DEMO_ACCOUNT_NAME}", replaced at every start):`,
    `  ${demoKey}`,
    '',
    'Try:',
    `  curl -H "Authorization: Bearer ${demoKey}" "${base}/v1/emails/disposable?email=someone%40mailinator.com"`,
    '',
  ].join('\n');
}
