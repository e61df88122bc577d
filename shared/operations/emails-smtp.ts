/**
 * Run functions of the email family's SMTP group: mailbox verify and address find. The disposable
 * check has a module of its own (emails-disposable.ts), which loads none of this.
 */
import { emailFind, emailVerify } from '../../schemas/operations/emails.js';
import { packagedDisposableDomains } from '../emails/disposable-domains.js';
import { DomainMemory } from '../emails/domain-memory.js';
import { addressableName, findEmail } from '../emails/find-email.js';
import { MxResolver } from '../emails/mx-resolver.js';
import { type EmailCheckDependencies, verifyEmail } from '../emails/verify-email.js';
import { HostSlots } from '../limits/host-slots.js';
import {
  type InputChecks,
  implement,
  type OperationImplementation,
  type RunnerRuntime,
} from '../pipeline/operation.js';

/** The catalog entries this module runs: a function of this group serves only these. */
export const operations = [emailVerify, emailFind] as const;

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

/** The SMTP operations' own input checks, beyond their schemas (before admission: they cost nothing). */
export const emailInputChecks: InputChecks<typeof emailFind> = {
  'emails.find': (input) => void addressableName(input),
};

export function createImplementations(
  runtime: RunnerRuntime,
  checks: EmailCheckDependencies = defaultEmailDependencies(runtime),
): OperationImplementation[] {
  return implement(
    operations,
    {
      'emails.verify': async ({ email }, { signal }) => ({
        data: counted(runtime, 'emails.verify', await verifyEmail(checks, email, signal)),
      }),
      'emails.find': async (input, { signal }) => ({
        data: counted(runtime, 'emails.find', await findEmail(checks, input, signal)),
      }),
    },
    emailInputChecks,
  );
}

/** Counts an SMTP verdict (SmtpOutcome) and passes it on. */
function counted<T extends { status: string }>(runtime: RunnerRuntime, operation: string, verdict: T): T {
  runtime.metrics.count('SmtpOutcome', 1, { Operation: operation, Status: verdict.status });
  return verdict;
}
