/**
 * Reading a console form: the body as plain fields (a Map, so no field name indexes an object), and
 * for a signed-in browser the check of its session's CSRF token. An unreadable body or a wrong token
 * is answered with a clear page, never an exception.
 */
import { getCookie } from 'hono/cookie';
import type { ConsoleContext } from './console-env.js';
import { CSRF_FIELD, isCsrfTokenOf, SESSION_COOKIE } from './console-security.js';
import { RefusalPage } from './pages/simple-pages.js';
import { renderPage } from './render.js';

/** A form's text fields; a field sent several times (checkboxes) keeps every value. */
export type FormFields = ReadonlyMap<string, readonly string[]>;

export function field(form: FormFields, name: string): string | undefined {
  return form.get(name)?.[0];
}

/** The body's text fields, or undefined when it is not a form this console could have sent. */
export async function readForm(c: ConsoleContext): Promise<FormFields | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  try {
    const body = await c.req.parseBody({ all: true });
    const fields = new Map<string, string[]>();
    for (const [name, value] of Object.entries(body)) {
      const values = (Array.isArray(value) ? value : [value]).filter((each) => typeof each === 'string');
      fields.set(name, values);
    }
    return fields;
  } catch {
    return undefined;
  }
}

export function refuse(c: ConsoleContext, title: string, message: string, status: 400 | 403 | 404 | 429) {
  const signedIn = c.get('signedIn');
  return renderPage(
    c,
    <RefusalPage
      assets={c.get('assets')}
      title={title}
      message={message}
      signedIn={signedIn && { accountName: signedIn.principal.account.name, csrfToken: signedIn.csrfToken }}
    />,
    status,
  );
}

/** The form of a signed-in browser's POST, once its CSRF token matched; else the refusal to send. */
export async function sessionForm(c: ConsoleContext): Promise<FormFields | Response> {
  const form = await readForm(c);
  if (!form) return refuse(c, 'Request refused', 'The request did not carry a form of this console.', 400);
  if (!isCsrfTokenOf(getCookie(c, SESSION_COOKIE), field(form, CSRF_FIELD))) {
    return refuse(
      c,
      'Request refused',
      'The form did not carry this session’s token (it may come from an older session): reload the page and try again. Nothing was changed.',
      403,
    );
  }
  return form;
}
