/**
 * The console's pages without data of an account: sign-in, and the page of a refused request
 * (403 cross-site, 429 throttled, 400 unreadable form, 404), which says what happened and what to do.
 */
import { CSRF_FIELD } from '../console-security.js';
import { Layout, type LayoutProps } from './layout.js';

export function SignInPage(props: {
  assets: LayoutProps['assets'];
  csrfToken: string;
  /** Whether this console can take passkeys (a domain name and a secure context). */
  passkeys: boolean;
  error?: string;
  notice?: string;
}) {
  return (
    <Layout title="Sign in" assets={props.assets}>
      {props.notice && <p class="notice">{props.notice}</p>}
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form method="post" action="/console/sign-in" class="stacked" id="sign-in-form">
        <input type="hidden" name={CSRF_FIELD} value={props.csrfToken} />
        <label for="api-key">API key of your account</label>
        <input
          type="password"
          id="api-key"
          name="apiKey"
          autocomplete="off"
          required
          aria-describedby="api-key-help"
        />
        <p id="api-key-help" class="muted">
          The key is checked once and never kept by the browser: you get a session that ends when you sign out
          or after a few hours, and as soon as the key is revoked.
        </p>
        <button type="submit">Sign in</button>
      </form>
      {props.passkeys && (
        <section aria-labelledby="passkey-heading">
          <h2 id="passkey-heading">Or with a passkey</h2>
          <p class="muted">
            Once signed in, register a passkey on the Passkeys page to sign in here without a key.
          </p>
          <button type="button" id="passkey-sign-in" hidden>
            Sign in with a passkey
          </button>
          <p id="passkey-sign-in-status" role="status" />
        </section>
      )}
    </Layout>
  );
}

export function RefusalPage(props: {
  assets: LayoutProps['assets'];
  title: string;
  message: string;
  signedIn?: LayoutProps['signedIn'];
}) {
  return (
    <Layout title={props.title} assets={props.assets} signedIn={props.signedIn}>
      <p class="error" role="alert">
        {props.message}
      </p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </Layout>
  );
}
