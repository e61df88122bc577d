/**
 * The three website operations over the browser runtime, and their honest outcomes, decided once:
 *
 * | what happened                                              | answer                               |
 * |------------------------------------------------------------|--------------------------------------|
 * | the submitted URL breaks rule 1 (scheme, credentials, port, a literal or resolved non-public address) | 400 `url` invalid_value, refunded |
 * | a redirect of the main document to such a target           | the same 400, refunded               |
 * | the target answers 404 or 410                               | 404 resource_not_found, charge kept  |
 * | any other 4xx/5xx, a bot challenge, a login wall, an "enable JavaScript" page, no visible text (text), more than 2 MiB | 502 upstream_error, refunded |
 * | the 35 s budget ends                                        | 504 upstream_timeout, refunded       |
 *
 * A blocked subresource, script request or socket is dropped by the proxy and the page renders
 * without it. Email discovery answers the submitted page's failure the same way; later pages'
 * failures only count toward `page_errors`.
 */

import { MAX_PAGE_CHARS } from '../../schemas/operations/websites.js';
import {
  InvalidRequestError,
  LookupTimeoutError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  UpstreamError,
} from '../errors.js';
import type { HostSlots } from '../limits/host-slots.js';
import { classifyDestination } from '../net/address-policy.js';
import { normalizeCandidates, rankDiscoveryLinks } from './email-addresses.js';
import { collectPageEmails, collectPageLinks } from './page-emails.js';
import { extractVisibleText, MAX_VISIBLE_TEXT_CHARS } from './visible-text.js';
import {
  EgressDeniedError,
  NavigationFailedError,
  type NavigationResult,
  PageBudgetError,
  type PageHandle,
  type WebsiteRuntime,
} from './website-runtime.js';

export interface WebsiteSettings {
  allowHosts: ReadonlySet<string>;
  budgetMs: number;
  maxRequests: number;
  maxHosts: number;
  respectRobots: boolean;
  /** The product token robots.txt groups are matched against. */
  robotsAgent: string;
}

export interface WebsiteDependencies {
  runtime: () => Promise<WebsiteRuntime>;
  /** Page loads per target host, across every process. */
  slots: HostSlots;
  settings: WebsiteSettings;
}

const MAX_DISCOVERY_ATTEMPTS = 8;
const MAX_ADDRESSES = 100;

/** Rule 1 on the submitted URL, before any page is opened; the host to hold a slot of. */
function refuseUnsafeUrl(url: URL, settings: WebsiteSettings): string {
  const decision = classifyDestination(url, { allowHosts: settings.allowHosts });
  if (!decision.allowed) throw refusal(decision.reason);
  return decision.host;
}

function refusal(reason: string): InvalidRequestError {
  return InvalidRequestError.single(
    'url',
    'invalid_value',
    `url must be a public http or https destination on port 80 or 443 (refused: ${reason}).`,
  );
}

/** Opens a page, runs `work`, and turns every failure into its public answer. */
async function withPage<T>(
  deps: WebsiteDependencies,
  url: URL,
  signal: AbortSignal,
  work: (handle: PageHandle, navigation: NavigationResult) => Promise<T>,
): Promise<T> {
  const host = refuseUnsafeUrl(url, deps.settings);
  const lease = await deps.slots.acquire(host);
  if (!lease)
    throw new ServiceUnavailableError(`Too many pages of ${host} are being loaded; no credits were used.`);
  try {
    return await renderWith(deps, url, signal, work);
  } finally {
    await lease.release().catch(() => undefined);
  }
}

async function renderWith<T>(
  deps: WebsiteDependencies,
  url: URL,
  signal: AbortSignal,
  work: (handle: PageHandle, navigation: NavigationResult) => Promise<T>,
): Promise<T> {
  const runtime = await deps.runtime();
  const handle = await runtime.openPage({
    budgetMs: deps.settings.budgetMs,
    maxRequests: deps.settings.maxRequests,
    maxHosts: deps.settings.maxHosts,
    signal,
  });
  try {
    const navigation = await navigate(handle, url.href);
    return await work(handle, navigation);
  } catch (error) {
    throw publicFailure(error);
  } finally {
    await handle.close();
  }
}

/** Navigates and judges the target's answer: a missing page, a failing one, or a page to read. */
async function navigate(handle: PageHandle, href: string): Promise<NavigationResult> {
  const navigation = await handle.goto(href);
  if (navigation.status === 404 || navigation.status === 410) {
    throw new ResourceNotFoundError(`The page answered ${navigation.status}: it does not exist.`);
  }
  if (navigation.status >= 400) throw new UpstreamError(`The page answered HTTP ${navigation.status}.`);
  return navigation;
}

function publicFailure(error: unknown): unknown {
  if (error instanceof EgressDeniedError) return refusal(error.reason);
  if (error instanceof PageBudgetError) {
    return new LookupTimeoutError(
      'The page did not finish within the 35 s processing budget; no credits were used.',
      error,
    );
  }
  if (error instanceof NavigationFailedError) {
    // Chromium's net error names the failure; the rest of its text repeats the (long) URL.
    const netError = /net::ERR_[A-Z0-9_]+/.exec(error.message)?.[0];
    return new UpstreamError(`The page could not be loaded${netError ? ` (${netError})` : ''}.`, error);
  }
  return error;
}

/** Pages that are a wall in front of the content, not the content. */
const INTERSTITIALS: [RegExp, string][] = [
  [
    /just a moment|checking your browser|attention required|verify you are (a )?human|are you a robot|captcha|ddos protection/i,
    'a bot challenge',
  ],
  [/enable javascript|javascript is (disabled|required)|requires javascript/i, 'an "enable JavaScript" page'],
  [/^(sign in|log in|login)\b|please (sign|log) in to (continue|view)/i, 'a login wall'],
];

function refuseInterstitial(title: string | null, text: string): void {
  const sample = `${title ?? ''}\n${text.slice(0, 2000)}`;
  // Long pages that merely mention these words are content, not walls.
  if (text.length > 3000) return;
  for (const [pattern, what] of INTERSTITIALS) {
    if (pattern.test(sample)) throw new UpstreamError(`The page is ${what}, not its content.`);
  }
}

/** The rendered page's HTML (at most 2 MiB) and visible text, unless the page is a wall. */
async function readPage(handle: PageHandle) {
  const html = await handle.page.content();
  if (html.length > MAX_PAGE_CHARS) throw new UpstreamError('The page is larger than 2 MiB of HTML.');
  const { title, text } = await handle.page.evaluate(extractVisibleText, MAX_VISIBLE_TEXT_CHARS);
  refuseInterstitial(title, text);
  return { html, title, text };
}

export async function pageContent(deps: WebsiteDependencies, url: URL, signal: AbortSignal) {
  return withPage(deps, url, signal, async (handle, navigation) => {
    const { title, html } = await readPage(handle);
    return { url: navigation.finalUrl, title, html };
  });
}

export async function pageText(deps: WebsiteDependencies, url: URL, signal: AbortSignal) {
  return withPage(deps, url, signal, async (handle, navigation) => {
    const { title, text } = await readPage(handle);
    if (text === '') throw new UpstreamError('The page has no visible text; no credits were used.');
    return { url: navigation.finalUrl, title, text };
  });
}

type StopReason = 'found' | 'exhausted' | 'page_limit' | 'time_limit' | 'page_errors';

async function pageAddresses(handle: PageHandle, pageUrl: string): Promise<string[]> {
  return normalizeCandidates(await handle.page.evaluate(collectPageEmails), pageUrl);
}

/**
 * Email discovery: the submitted page, then ranked same-site pages, at most eight attempts,
 * stopping at the first page with addresses. When several stop reasons hold, the first of found,
 * page_limit, time_limit, page_errors, exhausted wins.
 */
export async function discoverEmails(deps: WebsiteDependencies, url: URL, signal: AbortSignal) {
  return withPage(deps, url, signal, async (handle, navigation) => {
    const start = navigation.finalUrl;
    let attempts = 1;
    let pagesChecked = 1;
    let pageErrors = 0;
    let found = await pageAddresses(handle, start);
    let sourceUrl = start;
    let queue: string[] = [];
    if (found.length === 0) {
      const links = await handle.page.evaluate(collectPageLinks);
      queue = rankDiscoveryLinks(links, start, 50);
      if (deps.settings.respectRobots)
        queue = await allowedByRobots(handle, start, queue, deps.settings.robotsAgent);
    }
    let outOfTime = false;
    while (found.length === 0 && queue.length > 0 && attempts < MAX_DISCOVERY_ATTEMPTS) {
      if (handle.remainingMs() < 1_000) {
        outOfTime = true;
        break;
      }
      const next = queue.shift() as string;
      attempts += 1;
      try {
        const visited = await navigate(handle, next);
        pagesChecked += 1;
        found = await pageAddresses(handle, visited.finalUrl);
        sourceUrl = visited.finalUrl;
      } catch (error) {
        if (error instanceof PageBudgetError) {
          outOfTime = true;
          break;
        }
        pageErrors += 1;
      }
    }
    const stopReason: StopReason =
      found.length > 0
        ? 'found'
        : queue.length > 0 && attempts >= MAX_DISCOVERY_ATTEMPTS
          ? 'page_limit'
          : outOfTime
            ? 'time_limit'
            : pageErrors > 0
              ? 'page_errors'
              : 'exhausted';
    return {
      url: start,
      emails: found.slice(0, MAX_ADDRESSES).map((email) => ({ email, sourceUrl })),
      pagesChecked,
      truncated: found.length > MAX_ADDRESSES,
      stopReason,
    };
  });
}

/**
 * robots.txt of the site, read through the page (so through the egress proxy), for the pages that
 * discovery follows; never for the submitted page. Groups for our agent token, else `*`; the longest
 * matching Allow/Disallow prefix wins. An unreadable robots.txt allows everything.
 */
async function allowedByRobots(
  handle: PageHandle,
  start: string,
  links: string[],
  agent: string,
): Promise<string[]> {
  const robotsUrl = new URL('/robots.txt', start).href;
  const body = await handle.page
    .evaluate(async (target: string) => {
      try {
        const response = await fetch(target, { credentials: 'omit' });
        return response.ok ? (await response.text()).slice(0, 500_000) : '';
      } catch {
        return '';
      }
    }, robotsUrl)
    .catch(() => '');
  const rules = robotsRules(body, agent.toLowerCase());
  return links.filter((link) => {
    const path = new URL(link).pathname;
    let verdict = { allow: true, length: -1 };
    for (const rule of rules) {
      if (rule.path !== '' && path.startsWith(rule.path) && rule.path.length > verdict.length) {
        verdict = { allow: rule.allow, length: rule.path.length };
      }
    }
    return verdict.allow;
  });
}

export function robotsRules(body: string, agent: string): { allow: boolean; path: string }[] {
  const groups: { agents: string[]; rules: { allow: boolean; path: string }[] }[] = [];
  let current: (typeof groups)[number] | undefined;
  let lastWasAgent = false;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const field = (match[1] as string).toLowerCase();
    const value = (match[2] as string).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
    } else if ((field === 'allow' || field === 'disallow') && current) {
      current.rules.push({ allow: field === 'allow', path: value });
      lastWasAgent = false;
    }
  }
  const ours = groups.filter((group) => group.agents.some((name) => name !== '*' && agent.includes(name)));
  const chosen = ours.length > 0 ? ours : groups.filter((group) => group.agents.includes('*'));
  return chosen.flatMap((group) => group.rules);
}
