/**
 * The one layout of every console page: the document head (the hashed stylesheet and script, no
 * inline code), a skip link, the navigation and sign-out for a signed-in browser, and the page.
 */
import type { Child } from 'hono/jsx';
import type { ConsoleAssets } from '../console-assets.js';
import { CSRF_FIELD } from '../console-security.js';

export const consolePages = [
  { id: 'overview', path: '/console', title: 'Overview' },
  { id: 'usage', path: '/console/usage', title: 'Usage' },
  { id: 'activity', path: '/console/activity', title: 'Activity' },
  { id: 'batches', path: '/console/batches', title: 'Batches' },
  { id: 'keys', path: '/console/keys', title: 'Keys' },
  { id: 'passkeys', path: '/console/passkeys', title: 'Passkeys' },
  { id: 'connections', path: '/console/connections', title: 'Connections' },
  { id: 'prices', path: '/console/prices', title: 'Prices' },
  { id: 'connect', path: '/console/connect', title: 'Connect' },
] as const;
export type ConsolePageId = (typeof consolePages)[number]['id'];

/** Who is signed in, for the header: absent on the sign-in and refusal pages of a stranger. */
export interface SignedIn {
  accountName: string;
  csrfToken: string;
}

export interface LayoutProps {
  title: string;
  assets: ConsoleAssets;
  current?: ConsolePageId;
  signedIn?: SignedIn;
  children?: Child;
}

export function Layout(props: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Console`}</title>
        <link rel="stylesheet" href={props.assets.stylesheet.path} />
        <script src={props.assets.script.path} defer />
      </head>
      <body>
        <a class="skip-link" href="#content">
          Skip to content
        </a>
        <header class="site">
          <span class="brand">Lookup console</span>
          {props.signedIn && (
            <>
              <nav class="main" aria-label="Console">
                <ul>
                  {consolePages.map((page) => (
                    <li>
                      <a href={page.path} aria-current={page.id === props.current ? 'page' : undefined}>
                        {page.title}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <form method="post" action="/console/sign-out">
                <input type="hidden" name={CSRF_FIELD} value={props.signedIn.csrfToken} />
                <button type="submit">Sign out of {props.signedIn.accountName}</button>
              </form>
            </>
          )}
        </header>
        <main id="content">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/**
 * A table that may scroll sideways on a phone: a named region that takes focus, so a keyboard can
 * scroll it too.
 */
export function ScrollingTable(props: { label: string; children?: Child }) {
  return (
    <section class="table-wrap" aria-label={props.label} tabindex={0}>
      {props.children}
    </section>
  );
}

/** What a change just did, announced to screen readers as it appears; nothing when there is none. */
export function Notice(props: { text?: string }) {
  return props.text ? (
    <p class="notice" role="status">
      {props.text}
    </p>
  ) : null;
}
