/**
 * What the SMTP operations' run functions (verify, find) share: the MX resolver, the per-host session
 * slots and the domain memory their checks run on, from the settings, and the count of each verdict.
 */
import { packagedDisposableDomains } from '../emails/disposable-domains.js';
import { DomainMemory } from '../emails/domain-memory.js';
import { MxResolver } from '../emails/mx-resolver.js';
import type { EmailCheckDependencies } from '../emails/verify-email.js';
import { HostSlots } from '../limits/host-slots.js';
import type { RunnerRuntime } from '../pipeline/operation.js';

export function defaultEmailDependencies({
  store,
  clock,
  config,
  logger,
}: RunnerRuntime): EmailCheckDependencies {
  const budgetMs = config.SMTP_BUDGET_SECONDS * 1000;
  const [proxyHost, proxyPort] = config.SMTP_SOCKS_PROXY?.split(':') ?? [];
  return {
    disposableDomains: packagedDisposableDomains,
    unsupportedDomains: new Set(config.UNSUPPORTED_EMAIL_DOMAINS),
    budgetMs,
    resolver: new MxResolver({ servers: config.DNS_SERVERS }),
    // A lease outlives the longest session, so a crashed holder's slot frees itself soon after.
    capacity: new HostSlots(store, clock, 'smtp', config.SMTP_MAX_SESSIONS_PER_MX, budgetMs + 15_000),
    memory: new DomainMemory(store, clock, {
      domainFactsMs: config.EMAIL_DOMAIN_CACHE_SECONDS * 1000,
      lockStepMs: config.SMTP_LOCK_STEP_MEMORY_SECONDS * 1000,
    }),
    logger,
    settings: {
      heloName: config.SMTP_HELO_NAME,
      mailFrom: config.SMTP_MAIL_FROM,
      port: config.SMTP_PORT,
      stepTimeoutMs: config.SMTP_STEP_TIMEOUT_SECONDS * 1000,
      socksProxy: proxyHost && proxyPort ? { host: proxyHost, port: Number(proxyPort) } : undefined,
      allowHosts: config.UNSAFE_SMTP_ALLOW_HOSTS,
      pipeliningGroupSize: config.SMTP_PIPELINING_GROUP_SIZE,
      pipeliningPacingMs: config.SMTP_PIPELINING_PACING_MS,
    },
  };
}

/** Counts an SMTP verdict (SmtpOutcome) and passes it on. */
export function counted<T extends { status: string }>(
  runtime: RunnerRuntime,
  operation: string,
  verdict: T,
): T {
  runtime.metrics.count('SmtpOutcome', 1, { Operation: operation, Status: verdict.status });
  return verdict;
}
