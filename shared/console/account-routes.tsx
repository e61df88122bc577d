/**
 * Overview, Usage and Activity: the account as the account endpoints answer it, through the same
 * account view (accounts/account-view.ts), so the console and the API can never disagree. A bad
 * range, search or cursor is answered with the page and the API's own message, 400.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { accountDetails, accountLedger, accountUsage } from '../accounts/account-view.js';
import { ApiError } from '../errors.js';
import { type ConsoleContext, type ConsoleEnv, type ConsoleServices, signedInOf } from './console-env.js';
import { ActivityPage, OverviewPage, UsagePage, usageCsv } from './pages/account-pages.js';
import { renderPage } from './render.js';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every UTC day from `from` to `to`, both included (YYYY-MM-DD). */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS)
    days.push(day(at));
  return days;
}

/** An optional day of a query: absent or empty is undefined; anything but YYYY-MM-DD is refused. */
const optionalDay = z
  .string()
  .optional()
  .transform((text) => (text ? text : undefined))
  .pipe(z.iso.date({ error: 'Days are written YYYY-MM-DD.' }).optional());
const usageQuery = z.object({ from: optionalDay, to: optionalDay });
const activityQuery = z.object({
  requestId: z.string().trim().max(100, 'A request id is at most 100 characters.').optional(),
  cursor: z.string().max(500, 'That is not a cursor of this page.').optional(),
});

/** The message of a refusal the API would answer 4xx; anything else is not the customer's doing. */
function refusalMessage(error: unknown): string {
  if (error instanceof z.ZodError) return error.issues.map((issue) => issue.message).join(' ');
  if (error instanceof ApiError && error.status < 500)
    return [error.message, ...error.details.map((detail) => detail.message)].join(' ');
  throw error;
}

export function accountRoutes(app: Hono<ConsoleEnv>, services: ConsoleServices): void {
  const deps = services.accountView;
  const page = (c: ConsoleContext) => {
    const { principal, csrfToken } = signedInOf(c);
    return {
      assets: c.get('assets'),
      signedIn: { accountName: principal.account.name, csrfToken },
      principal,
    };
  };

  app.get('/', async (c) => {
    const { principal, ...base } = page(c);
    const now = services.clock.now();
    const [details, lastDays, month] = await Promise.all([
      accountDetails(deps, principal),
      accountUsage(deps, principal, {}),
      accountUsage(deps, principal, { from: `${day(now).slice(0, 8)}01` }),
    ]);
    const figures = {
      balance: details.credits.balance,
      rateLimit: details.rateLimit,
      creditsThisMonth: month.rows.reduce((sum, row) => sum + row.creditsCharged, 0),
      days: daysBetween(lastDays.from, lastDays.to),
      rows: lastDays.rows,
    };
    return renderPage(c, <OverviewPage {...base} figures={figures} />);
  });

  const usageOf = async (c: ConsoleContext) => {
    const query = usageQuery.parse({ from: c.req.query('from'), to: c.req.query('to') });
    return accountUsage(deps, page(c).principal, query);
  };

  app.get('/usage', async (c) => {
    const { principal: _, ...base } = page(c);
    try {
      const usage = await usageOf(c);
      return renderPage(c, <UsagePage {...base} from={usage.from} to={usage.to} rows={usage.rows} />);
    } catch (error) {
      const usage = await accountUsage(deps, page(c).principal, {});
      return renderPage(
        c,
        <UsagePage
          {...base}
          from={usage.from}
          to={usage.to}
          rows={usage.rows}
          error={refusalMessage(error)}
        />,
        400,
      );
    }
  });

  app.get('/usage.csv', async (c) => {
    let usage: Awaited<ReturnType<typeof usageOf>>;
    try {
      usage = await usageOf(c);
    } catch (error) {
      return c.text(refusalMessage(error), 400);
    }
    return c.body(usageCsv(usage.rows), 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="usage-${usage.from}-${usage.to}.csv"`,
    });
  });

  app.get('/activity', async (c) => {
    const { principal, ...base } = page(c);
    const requestId = c.req.query('requestId')?.trim() ?? '';
    try {
      const query = activityQuery.parse({ requestId: requestId || undefined, cursor: c.req.query('cursor') });
      const ledger = await accountLedger(deps, principal, query);
      return renderPage(
        c,
        <ActivityPage
          {...base}
          entries={ledger.entries}
          requestId={requestId}
          nextCursor={ledger.paging.nextCursor}
        />,
      );
    } catch (error) {
      const message = refusalMessage(error);
      return renderPage(
        c,
        <ActivityPage {...base} entries={[]} requestId={requestId} nextCursor={null} error={message} />,
        400,
      );
    }
  });
}
