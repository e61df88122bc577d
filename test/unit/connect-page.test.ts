/**
 * The consent page says who stands behind the name an agent shows: the host of its metadata
 * document (in its label), the service's operator, or nobody but the client itself.
 */
import { describe, expect, it } from 'vitest';
import type { ConsoleAsset } from '../../shared/console/console-assets.js';
import { ConnectPage } from '../../shared/console/pages/connections-page.js';
import type { ClientRegistrar } from '../../shared/oauth/authorization-server.js';

const asset = (name: string): ConsoleAsset => ({
  name,
  path: `/console/assets/${name}`,
  contentType: 'text/plain',
  body: new Uint8Array(),
});
const assets = { script: asset('console.js'), stylesheet: asset('console.css'), byName: new Map() };

async function consentText(clientId: string, registeredBy: ClientRegistrar): Promise<string> {
  const page = ConnectPage({
    assets,
    signedIn: { accountName: 'Acme', csrfToken: 'token' },
    pending: {
      uid: 'uid1',
      clientId,
      clientName: 'Research agent',
      redirectUri: 'https://agent.example/callback',
      requestedFamilies: ['profiles'],
      registeredBy,
    },
  });
  return (await page.toString()).replace(/<[^>]+>/g, '');
}

describe('ConnectPage', () => {
  it.each([
    ['https://agent.example/client.json', 'metadata-document', 'Research agent (agent.example)', undefined],
    ['op_abc', 'operator', 'Research agent', 'operator registered this client'],
    ['dyn_abc', 'itself', 'Research agent', 'This client registered itself'],
  ] as const)('names %s as registered by %s', async (clientId, registeredBy, label, note) => {
    const text = await consentText(clientId, registeredBy);
    expect(text).toContain(`${label} asks to call`);
    for (const sentence of ['operator registered this client', 'This client registered itself'])
      if (sentence === note) expect(text).toContain(sentence);
      else expect(text).not.toContain(sentence);
  });
});
