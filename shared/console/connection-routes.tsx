/**
 * The console's OAuth pages, behind sign-in: the connect page (the built-in authorization server's
 * login and consent step: the person approves an agent for chosen families and a daily cap, or
 * denies it) and Connections (list and revoke). A connect page reached without a session is
 * remembered, so sign-in by key or passkey comes back to it (console-security.ts RETURN_COOKIE).
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { type Family, families } from '../../schemas/operation-definition.js';
import type { PendingAuthorization } from '../oauth/authorization-server.js';
import type { BuiltInOAuth } from '../oauth/built-in-oauth.js';
import { type ConsoleContext, type ConsoleEnv, type ConsoleServices, signedInOf } from './console-env.js';
import { type FormFields, field, refuse, sessionForm } from './console-forms.js';
import { creditCap } from './key-routes.js';
import { ConnectionsPage, ConnectPage } from './pages/connections-page.js';
import { renderPage } from './render.js';

export interface ConnectionRouteOptions extends ConsoleServices {
  /** The built-in authorization server; absent when an outside issuer (OAUTH_ISSUER) signs agents in. */
  oauth?: BuiltInOAuth;
}

const approvalForm = z.object({
  families: z
    .array(z.enum(families, { error: 'Pick what it may call from the list.' }))
    .min(1, 'Pick at least one family of operations it may call.'),
  dailyCreditCap: creditCap('daily'),
});

const notices: ReadonlyMap<string, string> = new Map([['revoked', 'The connection is revoked.']]);

export function connectionRoutes(app: Hono<ConsoleEnv>, options: ConnectionRouteOptions): void {
  const signedIn = (c: ConsoleContext) => {
    const { principal, csrfToken } = signedInOf(c);
    return { accountName: principal.account.name, csrfToken };
  };
  /** The connect page, first shown or shown again with what was wrong with the form. */
  const connectPage = (
    c: ConsoleContext,
    pending: PendingAuthorization,
    again: { error?: string; chosen?: ReturnType<typeof chosenOf> } = {},
    status: 200 | 400 = 200,
  ) =>
    renderPage(
      c,
      <ConnectPage assets={c.get('assets')} signedIn={signedIn(c)} pending={pending} {...again} />,
      status,
    );

  app.get('/connections', async (c) => {
    const connections = await options.repositories.connections.list(
      signedInOf(c).principal.account.accountId,
    );
    return renderPage(
      c,
      <ConnectionsPage
        assets={c.get('assets')}
        signedIn={signedIn(c)}
        connections={connections}
        notice={notices.get(Object.keys(c.req.queries()).find((name) => notices.has(name)) ?? '')}
      />,
    );
  });

  app.post('/connections/:connectionId/revoke', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const server = await options.oauth?.server();
    const revoked = await server?.revokeConnection(
      signedInOf(c).principal.account.accountId,
      c.req.param('connectionId'),
    );
    if (!revoked) return refuse(c, 'Not found', 'This account has no such connection.', 404);
    return c.redirect('/console/connections?revoked', 303);
  });

  app.get('/connect/:uid', async (c) => {
    const pending = await pendingOf(c, options);
    if (pending instanceof Response) return pending;
    return connectPage(c, pending);
  });

  app.post('/connect/:uid', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const pending = await pendingOf(c, options);
    if (pending instanceof Response) return pending;
    const server = await (options.oauth as BuiltInOAuth).server();
    if (field(form, 'decision') === 'deny') return server.deny(c.req.raw);
    const parsed = approvalForm
      .refine(
        (approval) => approval.families.every((family) => pending.requestedFamilies.includes(family)),
        'Pick only among what the agent asked for.',
      )
      .safeParse({
        families: form.get('families') ?? [],
        dailyCreditCap: field(form, 'dailyCreditCap')?.trim() ?? '',
      });
    if (!parsed.success)
      return connectPage(c, pending, { error: parsed.error.issues[0]?.message, chosen: chosenOf(form) }, 400);
    return server.approve(c.req.raw, {
      accountId: signedInOf(c).principal.account.accountId,
      families: parsed.data.families,
      dailyCreditCap: parsed.data.dailyCreditCap,
    });
  });
}

/**
 * The pending authorization this browser started, or the page saying why there is none: the
 * interaction cookie is missing (another browser), it expired, or the OAuth server is not ours.
 */
async function pendingOf(c: ConsoleContext, options: ConnectionRouteOptions) {
  if (!options.oauth)
    return refuse(
      c,
      'Not found',
      'This service signs agents in through its operator’s own identity provider.',
      404,
    );
  const pending = await (await options.oauth.server()).pending(c.req.raw);
  if (pending !== undefined && pending.uid === c.req.param('uid')) {
    c.set('formTargets', [formTarget(pending.redirectUri)]);
    return pending;
  }
  return refuse(
    c,
    'Connection request expired',
    'This connection request has expired, was already answered, or was started in another browser. Start the connection again from your agent.',
    400,
  );
}

/** The CSP source of where the approval's redirects end: the redirect URI's origin, or its scheme. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

function chosenOf(form: FormFields): { families: Family[]; dailyCreditCap: string } {
  return {
    families: (form.get('families') ?? []).filter((value): value is Family =>
      (families as readonly string[]).includes(value),
    ),
    dailyCreditCap: field(form, 'dailyCreditCap') ?? '',
  };
}
