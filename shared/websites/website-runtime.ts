/**
 * The one place the egress proxy and Chromium are wired together: `createWebsiteRuntime` starts the
 * proxy on loopback and gives pages from a browser launched (lazily, on the first page) with every
 * request forced through that proxy. Create one runtime per process (module scope of the website
 * functions, or the local server) so a warm process keeps one proxy and one browser; each request gets a
 * new browser context from `openPage` and must `close()` it (the budget closes it anyway).
 *
 * Typical use by an operation:
 *   const handle = await runtime.openPage({ budgetMs: 35_000, maxRequests: 300, maxHosts: 30, signal });
 *   try { const nav = await handle.goto(url); … handle.page.evaluate(…) … } finally { await handle.close(); }
 * Errors from `goto`: EgressDeniedError (refused URL or redirect: reason, url, redirected),
 * PageBudgetError (budget or caller abort), NavigationFailedError (anything else).
 */
import type net from 'node:net';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { type OpenPageOptions, type PageHandle, WebsiteBrowser } from './browser.js';
import { type EgressProxy, startEgressProxy } from './egress-proxy.js';

export {
  EgressDeniedError,
  NavigationFailedError,
  type NavigationResult,
  type OpenPageOptions,
  PageBudgetError,
  type PageHandle,
} from './browser.js';
export type { EgressDenial, EgressDenyReason } from './egress-proxy.js';

export interface WebsiteRuntimeOptions {
  /** UNSAFE_WEBSITE_ALLOW_HOSTS, parsed with parseAllowHosts; empty in production. */
  readonly allowHosts: ReadonlySet<string>;
  readonly logger: Logger;
  /** Counts the proxy's denials; none by default. */
  readonly metrics?: Metrics;
  /** The identifying User-Agent pages send unless `openPage` is given another. */
  readonly userAgent: string;
  /** Test seam: the proxy's resolver (default: DNS A + AAAA). */
  readonly resolve?: (host: string) => Promise<string[]>;
  /** Test seam: the proxy's dialer (default: net.connect to the checked address). */
  readonly dial?: (address: string, port: number) => net.Socket | Promise<net.Socket>;
}

export interface WebsiteRuntime {
  /** The proxy: its `denials` list the recent refusals with their reasons. */
  readonly egress: EgressProxy;
  /** A page in a fresh browser context; see PageHandle. */
  openPage(
    options: Omit<OpenPageOptions, 'userAgent'> & { readonly userAgent?: string },
  ): Promise<PageHandle>;
  /** Closes the browser only; the next `openPage` launches a new one. */
  closeBrowser(): Promise<void>;
  /** Closes the browser and the proxy. */
  close(): Promise<void>;
}

export async function createWebsiteRuntime(options: WebsiteRuntimeOptions): Promise<WebsiteRuntime> {
  // The start-up warning about a non-empty allow-list is the service's (shared/service.ts).
  const { allowHosts, logger, metrics } = options;
  const egress = await startEgressProxy({
    allowHosts,
    logger,
    ...(metrics ? { metrics } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.dial ? { dial: options.dial } : {}),
  });
  const browser = new WebsiteBrowser({ egress, allowHosts, logger });
  return {
    egress,
    openPage: (page) => browser.openPage({ ...page, userAgent: page.userAgent ?? options.userAgent }),
    closeBrowser: () => browser.close(),
    close: async () => {
      await browser.close();
      await egress.close();
    },
  };
}
