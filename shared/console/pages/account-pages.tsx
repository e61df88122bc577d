/**
 * The account's pages: Overview (balance, rate limit, credits this month, the chart of the last 30
 * days stacked by operation with its data as a table), Usage (day × operation, CSV export) and
 * Activity (the ledger, searchable by request id, paged; a batch item's entry names its batch and index). They render what the account view
 * (accounts/account-view.ts) answers, the same values as the account endpoints.
 */
import { transports, type UsageRow } from '../../billing/billing-store.js';
import { Layout, type LayoutProps, ScrollingTable, type SignedIn } from './layout.js';

interface PageBase {
  assets: LayoutProps['assets'];
  signedIn: SignedIn;
}

export interface OverviewFigures {
  balance: number;
  rateLimit: { limit: number; windowSeconds: number; remaining: number; resetSeconds: number };
  creditsThisMonth: number;
  /** The chart's range, every day of it (days without calls included). */
  days: readonly string[];
  rows: readonly UsageRow[];
}

function Figure(props: { id: string; value: string | number; label: string }) {
  return (
    <p class="card">
      <span class="figure" id={props.id}>
        {props.value}
      </span>
      <span class="label">{props.label}</span>
    </p>
  );
}

export function OverviewPage(props: PageBase & { figures: OverviewFigures }) {
  const { figures } = props;
  const operations = [...new Set(figures.rows.map((row) => row.operation))].sort();
  const cell = new Map(figures.rows.map((row) => [`${row.date} ${row.operation}`, row]));
  const { rateLimit } = figures;
  return (
    <Layout title="Overview" assets={props.assets} current="overview" signedIn={props.signedIn}>
      <div class="cards">
        <Figure id="balance" value={figures.balance} label="credits left" />
        <Figure
          id="credits-this-month"
          value={figures.creditsThisMonth}
          label="credits used this month (UTC)"
        />
        <Figure
          id="rate-limit"
          value={`${rateLimit.remaining} / ${rateLimit.limit}`}
          label={`requests left in the ${rateLimit.windowSeconds}-second window (resets in ${rateLimit.resetSeconds} s)`}
        />
      </div>
      <h2 id="chart-title">Last 30 days</h2>
      <fieldset id="chart-metric" class="inline-form" hidden>
        <legend class="visually-hidden">Chart shows</legend>
        <label class="inline-form">
          <input type="radio" name="chart-metric" value="credits" checked /> credits
        </label>
        <label class="inline-form">
          <input type="radio" name="chart-metric" value="calls" /> calls
        </label>
      </fieldset>
      <div class="chart-box">
        <canvas
          id="usage-chart"
          role="img"
          aria-label="Bar chart of credits per day, stacked by operation; the table below holds the same figures."
        />
      </div>
      {operations.length === 0 && <p>No calls in the last 30 days.</p>}
      <ScrollingTable label="Credits and calls per day">
        <table id="usage-chart-table">
          <caption>Credits (calls) per day and operation</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {operations.map((operation) => (
                <th scope="col" class="number" data-operation={operation}>
                  {operation}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {figures.days.map((day) => (
              <tr>
                <th scope="row">{day}</th>
                {operations.map((operation) => {
                  const row = cell.get(`${day} ${operation}`);
                  const credits = row?.creditsCharged ?? 0;
                  const calls = row?.calls ?? 0;
                  return (
                    <td class="number" data-credits={String(credits)} data-calls={String(calls)}>
                      {calls === 0 ? '·' : `${credits} (${calls})`}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
    </Layout>
  );
}

/** The usage rows as CSV: the endpoint's fields in its order, calls per transport flattened. */
export function usageCsv(rows: readonly UsageRow[]): string {
  const header = [
    'date',
    'operation',
    'calls',
    'creditsCharged',
    'creditsRefunded',
    ...transports.map((transport) => `callsByTransport.${transport}`),
  ];
  const lines = rows.map((row) =>
    [
      row.date,
      row.operation,
      row.calls,
      row.creditsCharged,
      row.creditsRefunded,
      ...transports.map((transport) => row.callsByTransport[transport] ?? 0),
    ].join(','),
  );
  return `${[header.join(','), ...lines].join('\r\n')}\r\n`;
}

export function UsagePage(
  props: PageBase & { from: string; to: string; rows: readonly UsageRow[]; error?: string },
) {
  const query = new URLSearchParams({ from: props.from, to: props.to });
  return (
    <Layout title="Usage" assets={props.assets} current="usage" signedIn={props.signedIn}>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form method="get" action="/console/usage" class="stacked">
        <label for="from">From (UTC day)</label>
        <input type="date" id="from" name="from" value={props.from} />
        <label for="to">To (UTC day, included; at most 92 days)</label>
        <input type="date" id="to" name="to" value={props.to} />
        <button type="submit">Show</button>
      </form>
      <p>
        <a href={`/console/usage.csv?${query}`} download={`usage-${props.from}-${props.to}.csv`}>
          Download as CSV
        </a>
      </p>
      <ScrollingTable label="Usage by day and operation">
        <table id="usage">
          <caption>
            Usage from {props.from} to {props.to}
          </caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Operation</th>
              <th scope="col" class="number">
                Calls
              </th>
              <th scope="col" class="number">
                Credits charged
              </th>
              <th scope="col" class="number">
                Credits refunded
              </th>
              {transports.map((transport) => (
                <th scope="col" class="number">
                  {`Calls over ${transport}`}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr>
                <th scope="row">{row.date}</th>
                <td>{row.operation}</td>
                <td class="number">{row.calls}</td>
                <td class="number">{row.creditsCharged}</td>
                <td class="number">{row.creditsRefunded}</td>
                {transports.map((transport) => (
                  <td class="number">{row.callsByTransport[transport] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
      {props.rows.length === 0 && <p>No calls in this range.</p>}
    </Layout>
  );
}

export interface ActivityEntry {
  requestId: string;
  time: string;
  operation: string;
  transport: string | null;
  status: number | null;
  outcome: 'charged' | 'refunded' | 'free' | 'in_flight';
  credits: number;
  reason: string | null;
  /** Only on a batch item's entry. */
  batchId?: string;
  itemIndex?: number;
}

/** Why an entry cost what it did, in words. */
export function whyCharged(entry: ActivityEntry): string {
  const credits = `${entry.credits} credit${entry.credits === 1 ? '' : 's'}`;
  switch (entry.outcome) {
    case 'charged':
      return `Charged ${credits}: the call answered ${entry.status ?? 'a result'}, which keeps the charge.`;
    case 'refunded':
      return `Refunded ${credits}: ${entry.reason ?? 'the call failed'}${entry.status ? ` (${entry.status})` : ''} is not billed.`;
    case 'free':
      return 'Free: this operation costs nothing (counted against the rate limit).';
    case 'in_flight':
      return `Holding ${credits} while the call runs; settled when it answers.`;
  }
}

export function ActivityPage(
  props: PageBase & {
    entries: readonly ActivityEntry[];
    requestId: string;
    nextCursor: string | null;
    error?: string;
  },
) {
  return (
    <Layout title="Activity" assets={props.assets} current="activity" signedIn={props.signedIn}>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <search>
        <form method="get" action="/console/activity" class="stacked">
          <label for="request-id">Find a call by its request id (the X-Request-Id of its answer)</label>
          <input type="search" id="request-id" name="requestId" value={props.requestId} />
          <button type="submit">Search</button>
        </form>
      </search>
      <ScrollingTable label="Ledger entries">
        <table id="activity">
          <caption>Calls, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Request id</th>
              <th scope="col">Operation</th>
              <th scope="col">Transport</th>
              <th scope="col">Batch item</th>
              <th scope="col" class="number">
                Status
              </th>
              <th scope="col" class="number">
                Credits
              </th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {props.entries.map((entry) => (
              <tr data-request-id={entry.requestId}>
                <td>{entry.time.replace('T', ' ').slice(0, 19)}</td>
                <td>
                  <code>{entry.requestId}</code>
                </td>
                <td>{entry.operation}</td>
                <td>{entry.transport ?? '—'}</td>
                <td>
                  {entry.batchId === undefined ? (
                    '—'
                  ) : (
                    <>
                      <code>{entry.batchId}</code>, item {entry.itemIndex}
                    </>
                  )}
                </td>
                <td class="number">{entry.status ?? '—'}</td>
                <td class="number">{entry.credits}</td>
                <td>{whyCharged(entry)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
      {props.entries.length === 0 && <p>No calls match.</p>}
      {props.nextCursor && (
        <p>
          <a
            href={`/console/activity?${new URLSearchParams({
              ...(props.requestId ? { requestId: props.requestId } : {}),
              cursor: props.nextCursor,
            })}`}
          >
            Older calls
          </a>
        </p>
      )}
    </Layout>
  );
}
