/**
 * Pages that describe the service to a signed-in customer: Prices (the costs in force, overrides
 * applied, and when a call keeps its charge) and Connect (curl and the README's MCP client set-ups
 * with this service's public URL filled in, each with a copy button).
 */
import type { OperationPrice } from '../../accounts/account-view.js';
import { Layout, type LayoutProps, ScrollingTable, type SignedIn } from './layout.js';

export function PricesPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
  prices: readonly OperationPrice[];
}) {
  return (
    <Layout title="Prices" assets={props.assets} current="prices" signedIn={props.signedIn}>
      <p>
        Current costs in credits per call. A call refused before it runs (400, 401, 402, 403, 429) costs
        nothing; a failure on our side or the source’s is refunded.
      </p>
      <ScrollingTable label="Costs per operation">
        <table id="prices">
          <caption>Costs per operation</caption>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">REST paths</th>
              <th scope="col">MCP tool</th>
              <th scope="col" class="number">
                Credits
              </th>
              <th scope="col">When the charge is kept</th>
            </tr>
          </thead>
          <tbody>
            {props.prices.map((row) => (
              <tr>
                <th scope="row">{row.operation}</th>
                <td>
                  {row.paths.map((path, index) => (
                    <>
                      {index > 0 && <br />}
                      <code>{path}</code>
                    </>
                  ))}
                </td>
                <td>{row.mcpTool ? <code>{row.mcpTool}</code> : '—'}</td>
                <td class="number">{row.credits}</td>
                <td>{row.settlement}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
    </Layout>
  );
}

export interface ConnectSnippet {
  id: string;
  title: string;
  note: string;
  code: string;
}

export function ConnectPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
  baseUrl: string;
  snippets: readonly ConnectSnippet[];
}) {
  return (
    <Layout title="Connect" assets={props.assets} current="connect" signedIn={props.signedIn}>
      <section aria-labelledby="one-click-title">
        <h2 id="one-click-title">Agents, in one click</h2>
        <p>
          Add <code id="mcp-url">{`${props.baseUrl}/mcp`}</code> to your agent as a remote MCP server. It
          opens this console to ask you to approve it, and is then connected to this account without a key:
          choose what it may call and, if you like, a daily spend cap. The Connections page lists and revokes
          what you connected.
        </p>
      </section>
      <p>
        With a key instead: the service answers at <code>{props.baseUrl}</code>. Replace{' '}
        <code>&lt;API_KEY&gt;</code> with a key from the Keys page, and keep it in your client’s secret
        configuration.
      </p>
      {props.snippets.map((snippet) => (
        <section aria-labelledby={`${snippet.id}-title`}>
          <h2 id={`${snippet.id}-title`}>{snippet.title}</h2>
          <p>{snippet.note}</p>
          <pre id={snippet.id} tabindex={0}>
            {snippet.code}
          </pre>
          <button type="button" data-copy={snippet.id} data-status={`${snippet.id}-status`} hidden>
            Copy
          </button>
          <span id={`${snippet.id}-status`} role="status" aria-live="polite" />
        </section>
      ))}
    </Layout>
  );
}
