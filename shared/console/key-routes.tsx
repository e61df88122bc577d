/**
 * Keys: list the account's keys; issue one (label, scopes, expiry, spend caps), shown once with a copy button;
 * revoke one; rotate one (a new key with the same settings, the old one expiring after a chosen
 * overlap). Every change goes through the same audited functions as the operator CLI, attributed to
 * the console and the key that signed in.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { type Family, families } from '../../schemas/operation-definition.js';
import { expireKey, issueKey, revokeKey } from '../accounts/provisioning.js';
import type { ApiKeyRecord } from '../auth/api-keys.js';
import {
  type ConsoleContext,
  type ConsoleEnv,
  type ConsoleServices,
  consoleActor,
  signedInOf,
} from './console-env.js';
import { type FormFields, field, refuse, sessionForm } from './console-forms.js';
import { IssuedKeyPage, KeysPage } from './pages/keys-page.js';
import { renderPage } from './render.js';

/** The overlaps a rotation offers: how long the old key keeps working. */
export const rotationOverlaps: ReadonlyMap<string, { label: string; ms: number }> = new Map([
  ['0', { label: 'none (at once)', ms: 0 }],
  ['1h', { label: '1 hour', ms: 3_600_000 }],
  ['24h', { label: '24 hours', ms: 86_400_000 }],
  ['7d', { label: '7 days', ms: 7 * 86_400_000 }],
]);

const MAX_LABEL_LENGTH = 100;

const newKeyForm = z.object({
  label: z.string().trim().max(MAX_LABEL_LENGTH, `The label may be at most ${MAX_LABEL_LENGTH} characters.`),
  scopes: z.array(z.enum(families, { error: 'Pick scopes from the list.' })),
  expires: z.union([z.literal(''), z.iso.date({ error: 'The expiry must be a date (YYYY-MM-DD).' })]),
  dailyCreditCap: creditCap('daily'),
  monthlyCreditCap: creditCap('monthly'),
});

/** A cap field: empty for none, else a whole number of credits of at least 1 (as the CLI takes it). */
export function creditCap(period: 'daily' | 'monthly') {
  return z.union([
    z.literal('').transform(() => null),
    z
      .string()
      .regex(/^\d{1,9}$/, `The ${period} cap must be a whole number of credits.`)
      .transform(Number)
      .refine((cap) => cap >= 1, `The ${period} cap must be at least 1 credit.`),
  ]);
}

function keysView(
  c: ConsoleContext,
  services: ConsoleServices,
  keys: ApiKeyRecord[],
  error?: string,
  notice?: string,
) {
  const { principal, csrfToken } = signedInOf(c);
  return (
    <KeysPage
      assets={c.get('assets')}
      signedIn={{ accountName: principal.account.name, csrfToken }}
      keys={keys}
      signedInKeyId={principal.key?.keyId}
      now={services.clock.now()}
      overlaps={rotationOverlaps}
      error={error}
      notice={notice}
    />
  );
}

/** The listed key of the account a form names, or undefined. */
async function keyNamed(services: ConsoleServices, accountId: string, form: FormFields) {
  const keyId = field(form, 'keyId');
  return (await services.repositories.keys.list(accountId)).find((key) => key.keyId === keyId);
}

export function keyRoutes(app: Hono<ConsoleEnv>, services: ConsoleServices): void {
  const accountOf = (c: ConsoleContext) => signedInOf(c).principal.account.accountId;

  app.get('/keys', async (c) => {
    const keys = await services.repositories.keys.list(accountOf(c));
    const revoked = keys.find((key) => key.keyId === c.req.query('revoked'));
    return renderPage(
      c,
      keysView(c, services, keys, undefined, revoked && `Key ${revoked.keyId} is revoked.`),
    );
  });

  app.post('/keys', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const parsed = newKeyForm.safeParse({
      label: field(form, 'label') ?? '',
      scopes: form.get('scopes') ?? [],
      expires: field(form, 'expires') ?? '',
      dailyCreditCap: field(form, 'dailyCreditCap')?.trim() ?? '',
      monthlyCreditCap: field(form, 'monthlyCreditCap')?.trim() ?? '',
    });
    const now = services.clock.now();
    const expiresAt = parsed.success && parsed.data.expires ? `${parsed.data.expires}T00:00:00.000Z` : null;
    const problem = !parsed.success
      ? parsed.error.issues.map((issue) => issue.message).join(' ')
      : expiresAt && Date.parse(expiresAt) <= now
        ? 'The expiry must be a later day than today (keys expire at 00:00 UTC of that day).'
        : undefined;
    if (problem || !parsed.success) {
      const keys = await services.repositories.keys.list(accountOf(c));
      return renderPage(c, keysView(c, services, keys, problem), 400);
    }
    const issued = await issueKey(
      services.repositories,
      accountOf(c),
      {
        label: parsed.data.label || null,
        scopes: parsed.data.scopes.length > 0 ? (parsed.data.scopes as Family[]) : null,
        expiresAt,
        dailyCreditCap: parsed.data.dailyCreditCap,
        monthlyCreditCap: parsed.data.monthlyCreditCap,
      },
      { actor: consoleActor(c) },
    );
    return issuedPage(c, issued.apiKey, issued.record);
  });

  app.post('/keys/revoke', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const key = await keyNamed(services, accountOf(c), form);
    if (!key) return refuse(c, 'No such key', 'This account has no key with that id.', 404);
    await revokeKey(services.repositories, accountOf(c), key.keyId, { actor: consoleActor(c) });
    return c.redirect(`/console/keys?revoked=${encodeURIComponent(key.keyId)}`, 303);
  });

  app.post('/keys/rotate', async (c) => {
    const form = await sessionForm(c);
    if (form instanceof Response) return form;
    const key = await keyNamed(services, accountOf(c), form);
    if (!key) return refuse(c, 'No such key', 'This account has no key with that id.', 404);
    const overlap = rotationOverlaps.get(field(form, 'overlap') ?? '');
    if (!overlap) return refuse(c, 'Request refused', 'Pick one of the offered overlaps.', 400);
    const now = services.clock.now();
    if (key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= now)) {
      const keys = await services.repositories.keys.list(accountOf(c));
      return renderPage(
        c,
        keysView(c, services, keys, `Key ${key.keyId} is no longer active; issue a new key instead.`),
        400,
      );
    }
    const by = { actor: consoleActor(c), reason: `rotation of ${key.keyId}` };
    const issued = await issueKey(
      services.repositories,
      accountOf(c),
      {
        label: key.label,
        scopes: key.scopes,
        expiresAt: key.expiresAt,
        dailyCreditCap: key.dailyCreditCap,
        monthlyCreditCap: key.monthlyCreditCap,
      },
      by,
    );
    const old = await expireKey(
      services.repositories,
      accountOf(c),
      key.keyId,
      new Date(now + overlap.ms).toISOString(),
      by,
    );
    return issuedPage(c, issued.apiKey, issued.record, old);
  });
}

function issuedPage(c: ConsoleContext, apiKey: string, record: ApiKeyRecord, replaced?: ApiKeyRecord) {
  const { principal, csrfToken } = signedInOf(c);
  return renderPage(
    c,
    <IssuedKeyPage
      assets={c.get('assets')}
      signedIn={{ accountName: principal.account.name, csrfToken }}
      apiKey={apiKey}
      record={record}
      replaced={replaced}
    />,
    201,
  );
}
