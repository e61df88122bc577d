/**
 * Headless Chromium for the website tools: one browser per warm process (launched lazily, relaunched
 * after a crash), one fresh browser context per request, and every byte it sends forced through the
 * egress proxy (egress-proxy.ts), which is the SSRF boundary. `@sparticuz/chromium` + `puppeteer-core`
 * give the same headless-shell binary locally, in tests and on Lambda.
 *
 * Chromium is launched by chromium-launch.ts, which holds its command line and why each flag is there;
 * it is imported at the first launch, so a process that never opens a page never loads Puppeteer.
 *
 * Request interception is a SECOND layer only: Puppeteer's interception misses WebSockets and
 * worker/service-worker traffic and has redirect quirks (field notes; measured again by the SSRF battery
 * with Puppeteer 25: dedicated-worker requests are intercepted now, SharedWorker requests, WebSockets
 * and redirects Chromium refuses itself are not). It refuses, per page, what the policy refuses by URL
 * (scheme, credentials, port, literal addresses), anything but http(s) except data:/blob: subresources,
 * requests beyond `maxRequests` and new hosts beyond `maxHosts`. Service-worker registration is refused
 * in every frame, downloads are denied per context, dialogs are dismissed.
 *
 * The budget: `openPage` starts a timer; when it fires (or the caller's signal aborts) the context is
 * closed, which ends every page, worker and socket of the request, and pending calls reject with
 * `PageBudgetError`. Nothing of a request outlives its budget.
 */
import type { Browser, BrowserContext, HTTPRequest, Page } from 'puppeteer-core';
import type { Logger } from '../logger.js';
import { classifyDestination } from '../net/address-policy.js';
import {
  EGRESS_DENIAL_HEADER,
  EGRESS_FAILURE_HEADER,
  type EgressDenyReason,
  type EgressFailure,
  type EgressProxy,
} from './egress-proxy.js';

export interface BrowserSettings {
  /** The proxy every request goes through; its denials and failures explain navigations that fail. */
  readonly egress: Pick<EgressProxy, 'url' | 'denials' | 'failures'>;
  /** The same allow-list the proxy has (interception applies the same policy). */
  readonly allowHosts: ReadonlySet<string>;
  readonly logger: Logger;
}

export interface OpenPageOptions {
  /** Wall-clock budget from `openPage` to `close` (the API's website budget is 35 000 ms). */
  readonly budgetMs: number;
  readonly userAgent: string;
  /** Requests the page's frames may send, the document and its redirects included. */
  readonly maxRequests: number;
  /** Distinct `host[:port]` the page's frames may contact. */
  readonly maxHosts: number;
  /** Aborting it ends the page like an exhausted budget. */
  readonly signal?: AbortSignal;
}

export interface NavigationResult {
  /** The page's URL after redirects (and after any same-document URL change during the idle wait). */
  readonly finalUrl: string;
  /** The main document's status (the target's; the proxy's own refusals throw instead). */
  readonly status: number;
  /** The main document's response headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface PageHandle {
  /** The page, for `evaluate` and friends; it is closed with the context when the budget ends. */
  readonly page: Page;
  /** Aborted when the budget ends, the caller's signal aborts or `close` is called. */
  readonly signal: AbortSignal;
  /** Milliseconds left of the budget (0 when spent). */
  remainingMs(): number;
  /**
   * Navigates the main frame, waits for `load` and then for a short network idle, bounded by the
   * budget. Throws `EgressDeniedError` when the URL or a redirect of the main document is refused,
   * `PageBudgetError` when the budget ends, `NavigationFailedError` for any other failure.
   */
  goto(url: string): Promise<NavigationResult>;
  /** Closes the context (idempotent). */
  close(): Promise<void>;
}

/** The main document, or a redirect of it, was refused by the egress policy. */
export class EgressDeniedError extends Error {
  constructor(
    readonly reason: EgressDenyReason,
    /**
     * The refused URL: the redirect target when `redirected`, except for a redirect to a local scheme
     * that Chromium refuses itself (ERR_UNSAFE_REDIRECT), where it is the URL that redirected.
     */
    readonly url: string,
    /** True when the submitted URL was allowed and a redirect of the main document was refused. */
    readonly redirected: boolean,
  ) {
    super(`The ${redirected ? 'redirect target' : 'URL'} was refused by the egress policy: ${reason}`);
    this.name = 'EgressDeniedError';
  }
}

/** The page's budget ran out, or the caller aborted. */
export class PageBudgetError extends Error {
  constructor(message = 'The page did not finish within its time budget.', options?: ErrorOptions) {
    super(message, options);
    this.name = 'PageBudgetError';
  }
}

/** The navigation failed for another reason: DNS, connection, TLS, the proxy's 502, a browser error. */
export class NavigationFailedError extends Error {
  constructor(
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'NavigationFailedError';
  }
}

/**
 * After `load`, wait at most this long for the network to go quiet (within the budget). Exported for
 * bench/website-text.ts, whose bare-puppeteer baseline waits exactly as long.
 */
export const NETWORK_IDLE_CAP_MS = 2_000;
export const NETWORK_IDLE_TIME_MS = 300;

/** Runs in every frame before the page's scripts: no service worker can be registered. */
const FRAME_GUARD = `(() => {
  const container = globalThis.ServiceWorkerContainer;
  if (!container) return;
  const refuse = () => Promise.reject(new DOMException('Service workers are disabled.', 'SecurityError'));
  Object.defineProperty(container.prototype, 'register', { value: refuse, writable: false, configurable: false });
})();`;

/** One Chromium for the process, behind one egress proxy; see `createWebsiteRuntime` for the wiring. */
export class WebsiteBrowser {
  readonly #settings: BrowserSettings;
  #browser: Browser | undefined;
  #launching: Promise<Browser> | undefined;

  constructor(settings: BrowserSettings) {
    this.#settings = settings;
  }

  /** A new page in a new browser context, with the budget running from now. */
  async openPage(options: OpenPageOptions): Promise<PageHandle> {
    const deadline = Date.now() + options.budgetMs;
    const remainingMs = () => Math.max(0, deadline - Date.now());
    const controller = new AbortController();
    const budgetTimer = setTimeout(() => controller.abort(new PageBudgetError()), options.budgetMs);
    const onCallerAbort = () => controller.abort(new PageBudgetError('The request was aborted.'));
    if (options.signal?.aborted) onCallerAbort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });

    let context: BrowserContext | undefined;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      if (closing) return closing;
      // `closing` is set before the abort below, whose listener calls close() again synchronously:
      // otherwise that inner call would close the context a second time (measured: ~20 ms per page).
      let closed = () => {};
      closing = new Promise<void>((resolve) => {
        closed = resolve;
      });
      clearTimeout(budgetTimer);
      options.signal?.removeEventListener('abort', onCallerAbort);
      if (!controller.signal.aborted) controller.abort(new PageBudgetError('The page was closed.'));
      void Promise.resolve(context?.close())
        .catch(() => undefined)
        .then(closed);
      return closing;
    };
    controller.signal.addEventListener('abort', () => void close(), { once: true });

    try {
      const browser = await this.#withinBudget(this.#ensureBrowser(), controller.signal);
      const creating = browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
      // If the budget ends while the context is being created, close() runs before it exists: close
      // the context whenever it arrives.
      void creating.then(
        async (created) => {
          if (controller.signal.aborted) await created.close().catch(() => undefined);
        },
        () => undefined,
      );
      context = await this.#withinBudget(creating, controller.signal);
      const page = await this.#withinBudget(this.#preparePage(context, options), controller.signal);
      const expire = (cause: unknown) => controller.abort(new PageBudgetError(undefined, { cause }));
      return this.#handle(page, options, controller.signal, remainingMs, expire, close);
    } catch (error) {
      await close();
      if (controller.signal.aborted) throw controller.signal.reason;
      throw error;
    }
  }

  /** Closes the browser (tests, shutdown); the next `openPage` launches a new one. */
  async close(): Promise<void> {
    const browser = this.#browser ?? (await this.#launching?.catch(() => undefined));
    this.#browser = undefined;
    if (!browser) return;
    await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
  }

  async #ensureBrowser(): Promise<Browser> {
    if (this.#browser?.connected) return this.#browser;
    this.#launching ??= this.#launch().finally(() => {
      this.#launching = undefined;
    });
    return this.#launching;
  }

  async #launch(): Promise<Browser> {
    const { logger, egress } = this.#settings;
    const started = performance.now();
    const { launchChromium } = await import('./chromium-launch.js');
    const browser = await launchChromium(egress.url);
    browser.once('disconnected', () => {
      const expected = this.#browser !== browser;
      if (!expected) this.#browser = undefined;
      // A browser that lost its pipe but still runs would hold memory and sockets.
      browser.process()?.kill('SIGKILL');
      if (!expected) logger.warn('browser disconnected; the next page relaunches it');
    });
    this.#browser = browser;
    logger.info({ ms: Math.round(performance.now() - started) }, 'browser launched');
    return browser;
  }

  async #preparePage(context: BrowserContext, options: OpenPageOptions): Promise<Page> {
    const page = await context.newPage();
    // Popups that get past --block-new-web-contents are closed at once (their traffic still meets the proxy).
    context.on('targetcreated', (target) => {
      if (target.type() !== 'page' || target === page.target()) return;
      void target
        .page()
        .then((popup) => popup?.close())
        .catch(() => undefined);
    });
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    await page.setUserAgent({ userAgent: options.userAgent });
    await page.setBypassServiceWorker(true);
    await page.evaluateOnNewDocument(FRAME_GUARD);
    await page.setRequestInterception(true);
    return page;
  }

  #handle(
    page: Page,
    options: OpenPageOptions,
    signal: AbortSignal,
    remainingMs: () => number,
    expire: (cause: unknown) => void,
    close: () => Promise<void>,
  ): PageHandle {
    const { allowHosts, logger, egress } = this.#settings;
    const hosts = new Set<string>();
    let requests = 0;
    /** Main-frame navigations seen during the current goto, and the one interception refused. */
    let mainUrls: string[] = [];
    let mainDenial: { reason: EgressDenyReason; url: string } | undefined;

    const decide = (request: HTTPRequest): Promise<void> => {
      const abort = () => request.abort('blockedbyclient').catch(() => undefined);
      const mainNavigation = request.isNavigationRequest() && request.frame() === page.mainFrame();
      let url: URL;
      try {
        url = new URL(request.url());
      } catch {
        return abort();
      }
      if (url.protocol === 'data:' || url.protocol === 'blob:') {
        return mainNavigation ? abort() : request.continue().catch(() => undefined);
      }
      if (mainNavigation) mainUrls.push(url.href);
      const decision = classifyDestination(url, { allowHosts });
      if (!decision.allowed) {
        logger.warn({ host: decision.host, reason: decision.reason }, 'page request denied');
        // Only a network destination makes the page's answer a refusal; mailto:, tel: and the like just don't load.
        if (mainNavigation && ['http:', 'https:', 'file:'].includes(url.protocol)) {
          mainDenial ??= { reason: decision.reason, url: url.href };
        }
        return abort();
      }
      requests += 1;
      if (requests > options.maxRequests) {
        logger.info(
          { host: url.host, maxRequests: options.maxRequests },
          'page request over the request cap',
        );
        return abort();
      }
      if (!hosts.has(url.host)) {
        if (hosts.size >= options.maxHosts) {
          logger.info({ host: url.host, maxHosts: options.maxHosts }, 'page request over the host cap');
          return abort();
        }
        hosts.add(url.host);
      }
      return request.continue().catch(() => undefined);
    };
    page.on('request', (request) => void decide(request));
    /** Maps a failed or refused navigation to the error the caller sees. */
    const explain = (error: unknown, url: string, seen: ReadonlySet<string>): Error => {
      if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new PageBudgetError();
      if (mainDenial) return new EgressDeniedError(mainDenial.reason, mainDenial.url, mainDenial.url !== url);
      // Chromium refuses a redirect to file:, data: and other local schemes itself, before interception
      // sees it; every such scheme is refused by the policy too. The target is not reported, so `url`
      // is the last URL of the main document, the one that redirected.
      if (error instanceof Error && error.message.includes('net::ERR_UNSAFE_REDIRECT')) {
        return new EgressDeniedError('scheme', mainUrls.at(-1) ?? url, true);
      }
      // A CONNECT the proxy refused surfaces as a tunnel failure; its denial names the reason, and
      // its failure to reach the site says which one it was.
      const denial = proxyRecordFor(egress.denials, seen, mainUrls);
      if (denial) return new EgressDeniedError(denial.record.reason, denial.url, denial.url !== url);
      const failure = proxyRecordFor(egress.failures, seen, mainUrls);
      if (failure) return failedThrough(failure.record, failure.url, error);
      // Puppeteer's own timeout is the remaining budget: it may fire just before the budget timer.
      if (error instanceof Error && error.name === 'TimeoutError') {
        expire(error);
        return signal.reason instanceof Error ? signal.reason : new PageBudgetError();
      }
      const message = error instanceof Error ? error.message : String(error);
      return new NavigationFailedError(url, `Navigation failed: ${message}`, { cause: error });
    };

    const goto = async (url: string): Promise<NavigationResult> => {
      if (signal.aborted) throw signal.reason;
      let target: URL;
      try {
        target = new URL(url);
      } catch (error) {
        throw new NavigationFailedError(url, 'Not a URL.', { cause: error });
      }
      const decision = classifyDestination(target, { allowHosts });
      if (!decision.allowed) {
        logger.warn({ host: decision.host, reason: decision.reason }, 'page navigation denied');
        throw new EgressDeniedError(decision.reason, target.href, false);
      }
      mainUrls = [];
      mainDenial = undefined;
      const seen = new Set([...egress.denials, ...egress.failures].map((record) => record.id));

      let response: Awaited<ReturnType<Page['goto']>>;
      try {
        // At least 1 ms: a timeout of 0 would mean none (the budget timer aborts at the deadline anyway).
        response = await page.goto(target.href, {
          waitUntil: 'load',
          timeout: Math.max(1, remainingMs()),
          signal,
        });
      } catch (error) {
        throw explain(error, target.href, seen);
      }
      if (mainDenial) throw explain(undefined, target.href, seen);
      if (!response) throw new NavigationFailedError(target.href, 'The navigation produced no document.');
      const headers = response.headers();
      const denial = recordNamed(egress.denials, headers[EGRESS_DENIAL_HEADER]);
      if (denial) throw new EgressDeniedError(denial.reason, response.url(), response.url() !== target.href);
      // Over plain HTTP the proxy's failure to reach the site arrives as if the site had answered.
      const failure = recordNamed(egress.failures, headers[EGRESS_FAILURE_HEADER]);
      if (failure) throw failedThrough(failure, response.url());

      await page
        .waitForNetworkIdle({
          idleTime: NETWORK_IDLE_TIME_MS,
          timeout: Math.max(1, Math.min(NETWORK_IDLE_CAP_MS, remainingMs())),
          signal,
        })
        .catch(() => undefined);
      if (signal.aborted) throw signal.reason;
      // A client-side redirect (meta refresh, location=, a form) of the main document to a refused
      // target, refused by interception or by the proxy.
      if (mainDenial) throw explain(undefined, target.href, seen);
      const late = proxyRecordFor(egress.denials, seen, mainUrls);
      if (late) throw new EgressDeniedError(late.record.reason, late.url, late.url !== target.href);
      return { finalUrl: page.url(), status: response.status(), headers };
    };

    return { page, signal, remainingMs, goto, close };
  }

  /** Rejects with the budget's reason as soon as it ends, whatever the promise does. */
  async #withinBudget<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) throw signal.reason;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        promise,
        new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }
}

/** A denial or failure of the proxy, as it records them. */
interface ProxyRecord {
  readonly id: string;
  readonly host: string;
  readonly port: number;
}

/** The proxy's record whose id its answer carried in a header, if it carried one. */
function recordNamed<T extends ProxyRecord>(records: readonly T[], id: string | undefined): T | undefined {
  return id === undefined ? undefined : records.find((record) => record.id === id);
}

/** A proxy denial or failure recorded during this navigation for one of its main-frame URLs. */
function proxyRecordFor<T extends ProxyRecord>(
  records: readonly T[],
  seen: ReadonlySet<string>,
  mainUrls: readonly string[],
): { record: T; url: string } | undefined {
  for (const record of records) {
    if (seen.has(record.id)) continue;
    for (const text of mainUrls) {
      const url = new URL(text);
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      if (record.host === host && record.port === port) return { record, url: text };
    }
  }
  return undefined;
}

/** The proxy could not reach the site: the failure named as Chromium names its own network errors. */
function failedThrough(failure: EgressFailure, url: string, cause?: unknown): NavigationFailedError {
  return new NavigationFailedError(url, `Navigation failed: net::${failure.failure}`, { cause });
}
