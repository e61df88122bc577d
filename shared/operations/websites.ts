/**
 * Run functions of the website family. The browser runtime (egress proxy + Chromium) starts on the
 * first website request and lives as long as the process: one browser per warm process.
 */
import { websiteOperations } from '../../schemas/operations/websites.js';
import { HostSlots } from '../limits/host-slots.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { createWebsiteRuntime, type WebsiteRuntime } from '../websites/website-runtime.js';
import {
  discoverEmails,
  pageContent,
  pageText,
  type WebsiteDependencies,
} from '../websites/website-tools.js';

/** The catalog entries this module runs: a function of this family serves only these. */
export { websiteOperations as operations };

export function defaultWebsiteDependencies({
  store,
  clock,
  config,
  logger,
  metrics,
}: RunnerRuntime): WebsiteDependencies {
  let runtime: Promise<WebsiteRuntime> | undefined;
  return {
    runtime: () => {
      runtime ??= createWebsiteRuntime({
        allowHosts: config.UNSAFE_WEBSITE_ALLOW_HOSTS,
        logger,
        metrics,
        userAgent: config.WEBSITE_USER_AGENT,
      }).catch((error: unknown) => {
        runtime = undefined;
        throw error;
      });
      return runtime;
    },
    // A lease outlives the budget, so a crashed holder's slot frees itself soon after.
    slots: new HostSlots(
      store,
      clock,
      'web',
      config.WEBSITE_MAX_PAGES_PER_HOST,
      config.WEBSITE_BUDGET_SECONDS * 1000 + 15_000,
    ),
    settings: {
      allowHosts: config.UNSAFE_WEBSITE_ALLOW_HOSTS,
      budgetMs: config.WEBSITE_BUDGET_SECONDS * 1000,
      maxRequests: config.WEBSITE_MAX_REQUESTS,
      maxHosts: config.WEBSITE_MAX_HOSTS,
      respectRobots: config.WEBSITE_RESPECT_ROBOTS,
      robotsAgent: config.WEBSITE_USER_AGENT.split('/')[0] ?? 'LookupServiceBot',
    },
  };
}

export function createImplementations(
  runtime: RunnerRuntime,
  deps: WebsiteDependencies = defaultWebsiteDependencies(runtime),
): OperationImplementation[] {
  return implement(websiteOperations, {
    'websites.content': async ({ url }, { signal }) => ({ data: await pageContent(deps, url, signal) }),
    'websites.text': async ({ url }, { signal }) => ({ data: await pageText(deps, url, signal) }),
    'websites.emails': async ({ url }, { signal }) => ({ data: await discoverEmails(deps, url, signal) }),
  });
}
