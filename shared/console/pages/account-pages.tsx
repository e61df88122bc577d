/**
 * The account's pages: Overview (balance, rate limit, credits this month, the chart of the last 30
 * days with its data as a table), Usage (day × operation, CSV export) and Activity (the ledger).
 */
import { Layout, type LayoutProps, type SignedIn } from './layout.js';

export function OverviewPage(props: { assets: LayoutProps['assets']; signedIn: SignedIn; balance: number }) {
  return (
    <Layout title="Overview" assets={props.assets} current="overview" signedIn={props.signedIn}>
      <div class="cards">
        <p class="card">
          <span class="figure" id="balance">
            {props.balance}
          </span>
          <span class="label">credits left</span>
        </p>
      </div>
    </Layout>
  );
}
