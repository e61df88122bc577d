/**
 * The composition root: builds repositories, the pipeline and the REST app from a store (any adapter
 * of the store port) and a config. The local server, each Lambda function, the CLI and the tests
 * all assemble the service here, so they run the same code.
 */
import type { OperationDefinition } from '../schemas/operation-definition.js';
import { AccountRepository } from './accounts/accounts.js';
import { ApiKeyRepository } from './auth/api-keys.js';
import { Authenticator } from './auth/authenticator.js';
import { CreditLedger } from './billing/credit-ledger.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { ApiBinding } from './http/api-binding.js';
import { createRestApp } from './http/create-app.js';
import { v1Api } from './http/v1-api.js';
import { createLogger, type Logger } from './logger.js';
import { type Metrics, noMetrics } from './observability/metrics.js';
import { type ImplementationFactory, registerOperations } from './pipeline/operation.js';
import { LookupPipeline } from './pipeline/run-lookup.js';
import type { Store } from './store/store.js';
import { v2Api } from './v2/v2-api.js';

/** The API families every service serves its operations through. */
export const apiFamilies: readonly ApiBinding[] = [v1Api, v2Api];

export interface ServiceOptions {
  config: Config;
  store: Store;
  /** Builds the run functions; every operation served must have one. */
  implementations: ImplementationFactory;
  /**
   * The operations to serve: the whole catalog locally, a function's own slice on Lambda (which then
   * never constructs the other operations' schemas).
   */
  operations: readonly OperationDefinition[];
  clock?: Clock;
  logger?: Logger;
  /** Operational counters; none by default (the local server). */
  metrics?: Metrics;
}

export function createRepositories(
  store: Store,
  clock: Clock = systemClock,
  logger: Logger = createLogger('silent'),
) {
  return {
    accounts: new AccountRepository(store.accounts, clock),
    keys: new ApiKeyRepository(store.keys, clock),
    ledger: new CreditLedger(store.billing, clock, logger),
    oauthLinks: store.oauthLinks,
    connections: store.connections,
    oauthState: store.oauthState,
    settings: store.settings,
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

export function createService(options: ServiceOptions) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(options.config.LOG_LEVEL);
  const metrics = options.metrics ?? noMetrics;
  const repositories = createRepositories(options.store, clock, logger);
  warnAboutUnsafeSettings(options.config, logger);
  const authenticator = new Authenticator(
    repositories.keys,
    repositories.accounts,
    clock,
    options.config.KEY_CACHE_SECONDS * 1000,
  );
  const pipeline = new LookupPipeline({
    authenticator,
    ledger: repositories.ledger,
    clock,
    logger,
    metrics,
    accountReads: { limit: options.config.ACCOUNT_RATE_LIMIT, windowSeconds: 60 },
  });
  const operations = registerOperations(
    options.operations,
    options.implementations({ store: options.store, clock, config: options.config, logger, metrics }),
    options.config.PRICE_OVERRIDES,
  );
  const { app, endpoints, edge } = createRestApp({
    operations,
    apis: apiFamilies,
    pipeline,
    logger,
    storeProbe: () => options.store.ping(),
    authFailures: {
      limit: options.config.AUTH_FAILURE_LIMIT,
      windowMs: options.config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      clock,
    },
  });
  return {
    app,
    /** The API's routes and what every request passes, for the API lane (api-lane.ts). */
    apiEndpoints: endpoints,
    requestEdge: edge,
    pipeline,
    operations,
    repositories,
    authenticator,
    config: options.config,
    logger,
    clock,
  };
}

export type Service = ReturnType<typeof createService>;

/** The longest deadline of any operation: a pending ledger entry older than this is abandoned. */
export function longestDeadlineMs(operations: readonly OperationDefinition[]): number {
  return Math.max(...operations.map((operation) => operation.runtime.timeoutMs));
}

/** Settings that weaken a security boundary are for tests; say so loudly wherever they are set. */
function warnAboutUnsafeSettings(config: Config, logger: Logger): void {
  const unsafe = {
    UNSAFE_SMTP_ALLOW_HOSTS: 'these mail servers are dialled although their addresses are not public',
    UNSAFE_WEBSITE_ALLOW_HOSTS: 'these host:port pairs bypass the website address and port rules',
    UNSAFE_OAUTH_CLIENT_ALLOW_HOSTS:
      'client metadata documents are fetched from these non-public host:port pairs',
    UNSAFE_BATCH_URL_ALLOW_HOSTS:
      'batch webhooks are sent to, and batch items fetched from, these non-public host:port pairs, plain HTTP too',
  } as const;
  for (const [name, consequence] of Object.entries(unsafe) as [keyof typeof unsafe, string][]) {
    if (config[name].size > 0) logger.warn({ [name]: [...config[name]] }, `${name} is set: ${consequence}`);
  }
}
