/**
 * The browser half of the console's passkey ceremonies (passkey-routes.tsx): @simplewebauthn/browser
 * asks the authenticator, and these functions carry options and answers to and from the console as
 * JSON, with the page's CSRF token. Buttons stay disabled where the browser has no WebAuthn.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

interface ConsoleAnswer {
  options?: unknown;
  location?: string;
  error?: string;
}

async function post(path: string, body: Record<string, unknown>): Promise<ConsoleAnswer> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  const answer = (await response.json().catch(() => ({}))) as ConsoleAnswer;
  if (!response.ok) throw new Error(answer.error ?? `The console answered ${response.status}.`);
  return answer;
}

/** Why the authenticator step failed, in words for the person (cancelled, timed out, …). */
function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'NotAllowedError')
    return 'The passkey prompt was cancelled or timed out.';
  return error instanceof Error ? error.message : 'The passkey step failed.';
}

function setUpSignIn(): void {
  const button = document.getElementById('passkey-sign-in');
  const form = document.getElementById('sign-in-form');
  const status = document.getElementById('passkey-sign-in-status');
  if (!(button instanceof HTMLButtonElement) || !(form instanceof HTMLFormElement) || !status) return;
  if (!browserSupportsWebAuthn()) return;
  const csrf = new FormData(form).get('csrf');
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Waiting for your passkey…';
    try {
      const { options } = await post('/console/passkeys/sign-in/options', { csrf });
      const response = await startAuthentication({ optionsJSON: options as never });
      const { location } = await post('/console/passkeys/sign-in', { csrf, response });
      window.location.assign(location ?? '/console');
    } catch (error) {
      status.textContent = reason(error);
      button.disabled = false;
    }
  });
}

function setUpRegistration(): void {
  const form = document.getElementById('passkey-register');
  const button = document.getElementById('passkey-register-button');
  const status = document.getElementById('passkey-register-status');
  if (!(form instanceof HTMLFormElement) || !(button instanceof HTMLButtonElement) || !status) return;
  if (!browserSupportsWebAuthn()) {
    status.textContent = 'This browser cannot use passkeys.';
    return;
  }
  const csrf = form.dataset.csrf;
  button.disabled = false;
  status.textContent = '';
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = 'Follow your device’s prompt…';
    try {
      const { options } = await post('/console/passkeys/register/options', { csrf });
      const response = await startRegistration({ optionsJSON: options as never });
      const label = new FormData(form).get('label');
      const { location } = await post('/console/passkeys/register', { csrf, label, response });
      window.location.assign(location ?? '/console/passkeys');
    } catch (error) {
      status.textContent = reason(error);
      button.disabled = false;
    }
  });
}

export function setUpPasskeys(): void {
  setUpSignIn();
  setUpRegistration();
}
