/**
 * Batches in the console: the account's bulk lookups, newest first and paged (the view GET
 * /v1/batches answers, from the same BatchService), and their results downloaded as CSV or JSONL
 * through the session, streamed as GET /v1/batches/{id}/results streams them. Another account's
 * batch is not found, as on the API.
 */
import type { Hono } from 'hono';
import { type ResultsFormat, streamResults } from '../batches/batch-results.js';
import type { BatchService } from '../batches/batch-service.js';
import type { BatchRecord } from '../batches/batch-store.js';
import { ResourceNotFoundError } from '../errors.js';
import { type ConsoleContext, type ConsoleEnv, type ConsoleServices, signedInOf } from './console-env.js';
import { BatchesPage } from './pages/batches-page.js';
import { RefusalPage } from './pages/simple-pages.js';
import { renderPage } from './render.js';

/** Batches per page, as GET /v1/batches's default. */
export const BATCHES_PER_PAGE = 20;
const BATCH_ID = /^bat_[A-Za-z0-9]{20}$/;
/** The download names a batch's results go by, a Map since the name comes from the request. */
const RESULT_FILES: ReadonlyMap<string, ResultsFormat> = new Map([
  ['results.csv', 'csv'],
  ['results.jsonl', 'jsonl'],
]);
const CONTENT_TYPES: Record<ResultsFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/jsonl; charset=utf-8',
};

export function batchPageRoutes(
  app: Hono<ConsoleEnv>,
  services: Pick<ConsoleServices, 'operations'> & { batches: BatchService },
): void {
  const { batches } = services;
  const base = (c: ConsoleContext) => {
    const { principal, csrfToken } = signedInOf(c);
    return { assets: c.get('assets'), signedIn: { accountName: principal.account.name, csrfToken } };
  };

  app.get('/batches', async (c) => {
    const { principal } = signedInOf(c);
    const cursor = c.req.query('cursor');
    if (cursor !== undefined && !BATCH_ID.test(cursor))
      return renderPage(
        c,
        <BatchesPage
          {...base(c)}
          batches={[]}
          nextCursor={null}
          error="That is not a cursor of this page; start again from the newest batches."
        />,
        400,
      );
    const page = await batches.list(principal, BATCHES_PER_PAGE + 1, cursor);
    const shown = page.slice(0, BATCHES_PER_PAGE);
    const nextCursor = page.length > BATCHES_PER_PAGE ? (shown.at(-1) as BatchRecord).batchId : null;
    return renderPage(
      c,
      <BatchesPage
        {...base(c)}
        batches={shown.map((batch) => batches.view(batch))}
        nextCursor={nextCursor}
      />,
    );
  });

  app.get('/batches/:id/:file', async (c, next) => {
    const batchId = c.req.param('id');
    const format = RESULT_FILES.get(c.req.param('file'));
    // Anything else falls through to the console's "not found" page.
    if (!format || !BATCH_ID.test(batchId)) return next();
    const batch = await batches.get(signedInOf(c).principal, batchId).catch((error: unknown) => {
      if (error instanceof ResourceNotFoundError) return undefined;
      throw error;
    });
    if (!batch)
      return renderPage(
        c,
        <RefusalPage
          {...base(c)}
          title="Not found"
          message={`There is no batch ${batchId} in this account.`}
        />,
        404,
      );
    const operation = services.operations.find(({ definition }) => definition.id === batch.operation);
    const parameters = Object.keys(operation?.definition.query.shape ?? {});
    const stream = streamResults(batch, parameters, format, (from, limit) =>
      batches.items(batch, from, limit),
    );
    return new Response(stream, {
      headers: {
        'Content-Type': CONTENT_TYPES[format],
        'Content-Disposition': `attachment; filename="${batch.batchId}.${format}"`,
      },
    });
  });
}
