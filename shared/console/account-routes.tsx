/**
 * Overview, Usage and Activity: the account as the account endpoints answer it.
 */
import type { Hono } from 'hono';
import { type ConsoleEnv, type ConsoleServices, signedInOf } from './console-env.js';
import { OverviewPage } from './pages/account-pages.js';
import { renderPage } from './render.js';

export function accountRoutes(app: Hono<ConsoleEnv>, services: ConsoleServices): void {
  app.get('/', async (c) => {
    const { principal, csrfToken } = signedInOf(c);
    const state = await services.repositories.ledger.state(principal.account.accountId);
    return renderPage(
      c,
      <OverviewPage
        assets={c.get('assets')}
        signedIn={{ accountName: principal.account.name, csrfToken }}
        balance={state.balance}
      />,
    );
  });
}
