/**
 * Prices and Connect: what the service charges (the prices GET /v1/account answers, PRICE_OVERRIDES
 * applied) and how to reach it, with the public base URL filled in.
 */
import type { Hono } from 'hono';
import { operationPrices } from '../accounts/account-view.js';
import type { RegisteredOperation } from '../pipeline/operation.js';
import { type ConsoleEnv, type ConsoleServices, signedInOf } from './console-env.js';
import { ConnectPage, type ConnectSnippet, PricesPage } from './pages/info-pages.js';
import { renderPage } from './render.js';

/** curl and the MCP client set-ups of the README, for this service's URL. */
export function connectSnippets(
  baseUrl: string,
  operations: readonly RegisteredOperation[],
): ConnectSnippet[] {
  const mcp = `${baseUrl}/mcp`;
  const example = operations.find((operation) => operation.definition.variants[0]?.path.startsWith('/v1/'));
  const exampleUrl = example
    ? `${baseUrl}${example.definition.variants[0]?.path}?${new URLSearchParams(
        Object.entries(example.definition.examples).slice(0, 1),
      )}`
    : `${baseUrl}/v1/...`;
  return [
    {
      id: 'curl',
      title: 'curl',
      note: 'Every REST call takes the key as a bearer token; the answer says what it cost in X-Credits-Remaining.',
      code: `curl -H "Authorization: Bearer <API_KEY>" \\\n  "${exampleUrl}"`,
    },
    {
      id: 'cursor',
      title: 'Cursor (~/.cursor/mcp.json or .cursor/mcp.json)',
      note: 'Cursor connects to the MCP endpoint over HTTP with the key in a header.',
      code: JSON.stringify(
        { mcpServers: { lookup: { url: mcp, headers: { Authorization: 'Bearer <API_KEY>' } } } },
        null,
        2,
      ),
    },
    {
      id: 'vscode',
      title: 'VS Code (.vscode/mcp.json)',
      note: 'VS Code asks for the key once and stores it.',
      code: JSON.stringify(
        {
          inputs: [{ type: 'promptString', id: 'lookup-key', description: 'Lookup API key', password: true }],
          servers: {
            lookup: {
              type: 'http',
              url: mcp,
              // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's input reference, written as is
              headers: { Authorization: 'Bearer ${input:lookup-key}' },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'claude-desktop',
      title: 'Claude Desktop (claude_desktop_config.json)',
      note: 'Claude Desktop speaks stdio to local servers, so it connects through the mcp-remote bridge; the header goes through an environment variable.',
      code: JSON.stringify(
        {
          mcpServers: {
            lookup: {
              command: 'npx',
              // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands the variable itself
              args: ['-y', 'mcp-remote', mcp, '--header', 'Authorization:${LOOKUP_AUTH}'],
              env: { LOOKUP_AUTH: 'Bearer <API_KEY>' },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'inspector',
      title: 'MCP Inspector (command line)',
      note: 'Lists the tools; tools/call runs one.',
      code: `npx @modelcontextprotocol/inspector --cli ${mcp} --transport http \\\n  --header "Authorization: Bearer <API_KEY>" --method tools/list`,
    },
  ];
}

export function infoRoutes(app: Hono<ConsoleEnv>, services: ConsoleServices): void {
  // What GET /v1/account answers as `data.prices`.
  const prices = operationPrices(services.accountView.operations, services.accountView.priceOverrides);
  const snippets = connectSnippets(services.publicBaseUrl, services.operations);
  const signedIn = (c: Parameters<typeof signedInOf>[0]) => {
    const { principal, csrfToken } = signedInOf(c);
    return { accountName: principal.account.name, csrfToken };
  };
  app.get('/prices', (c) =>
    renderPage(c, <PricesPage assets={c.get('assets')} signedIn={signedIn(c)} prices={prices} />),
  );
  app.get('/connect', (c) =>
    renderPage(
      c,
      <ConnectPage
        assets={c.get('assets')}
        signedIn={signedIn(c)}
        baseUrl={services.publicBaseUrl}
        snippets={snippets}
      />,
    ),
  );
}
