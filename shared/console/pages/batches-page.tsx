/**
 * The Batches page: the account's bulk lookups, newest first, as GET /v1/batches shows them (the
 * same view, batch-service.ts), each with links to download its results through the console session.
 */
import type { BatchView } from '../../batches/batch-service.js';
import { Layout, type LayoutProps, ScrollingTable, type SignedIn } from './layout.js';

const PAUSE_REASONS: Record<NonNullable<BatchView['pauseReason']>, string> = {
  insufficient_credits: 'out of credits; resumes when credits are granted',
  spend_cap: "the key's spend cap is reached; resumes when the cap resets",
};

/** The state in words: a paused batch says why and when it goes on. */
export function batchStateText(batch: Pick<BatchView, 'state' | 'pauseReason'>): string {
  return batch.pauseReason ? `paused: ${PAUSE_REASONS[batch.pauseReason]}` : batch.state;
}

/** The counts per outcome in one cell, so the table fits a laptop's width. */
export function outcomesText(items: BatchView['items']): string {
  return `${items.succeeded} succeeded, ${items.failed} failed, ${items.invalid} invalid, ${items.pending} pending`;
}

export function BatchesPage(props: {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
  batches: readonly BatchView[];
  /** The cursor of the next (older) page; null on the last. */
  nextCursor: string | null;
  error?: string;
}) {
  return (
    <Layout title="Batches" assets={props.assets} current="batches" signedIn={props.signedIn}>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p>
        Bulk lookups created with <code>POST /v1/batches</code>. Each item is billed as its single call; the
        ledger lists every item on the Activity page.
      </p>
      <ScrollingTable label="Batches">
        <table id="batches">
          <caption>Batches, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Batch</th>
              <th scope="col">Operation</th>
              <th scope="col">State</th>
              <th scope="col" class="number">
                Items
              </th>
              <th scope="col">Outcomes</th>
              <th scope="col">Credits</th>
              <th scope="col">Created (UTC)</th>
              <th scope="col">Results</th>
            </tr>
          </thead>
          <tbody>
            {props.batches.map((batch) => (
              <tr data-batch-id={batch.id} data-state={batch.state}>
                <th scope="row">
                  <code>{batch.id}</code>
                </th>
                <td>{batch.operation}</td>
                <td>{batchStateText(batch)}</td>
                <td class="number">{batch.items.total}</td>
                <td>{outcomesText(batch.items)}</td>
                <td>{`${batch.credits.charged} charged, ${batch.credits.refunded} refunded`}</td>
                <td>{batch.createdAt.replace('T', ' ').slice(0, 19)}</td>
                <td>
                  <a
                    href={`/console/batches/${batch.id}/results.csv`}
                    download={`${batch.id}.csv`}
                    aria-label={`CSV results of ${batch.id}`}
                  >
                    CSV
                  </a>{' '}
                  <a
                    href={`/console/batches/${batch.id}/results.jsonl`}
                    download={`${batch.id}.jsonl`}
                    aria-label={`JSONL results of ${batch.id}`}
                  >
                    JSONL
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
      {props.batches.length === 0 && <p>No batches yet.</p>}
      {props.nextCursor && (
        <p>
          <a href={`/console/batches?${new URLSearchParams({ cursor: props.nextCursor })}`}>Older batches</a>
        </p>
      )}
    </Layout>
  );
}
