/**
 * The scheduled reconcile (EventBridge, every few minutes): the same settlement as `npm run admin --
 * reconcile`, refunding in-flight debits older than the longest deadline that a timed-out or crashed
 * function left behind (RECONCILE_AFTER_SECONDS shortens that). Answers a JSON summary, which lands in
 * the function's log.
 */
import { createRepositories } from '../../shared/service.js';
import { DEFAULT_RECONCILE_AGE_SECONDS, reconcile } from '../cli/commands.js';
import { emfMetrics } from './emf-metrics.js';
import { lambdaConfig, lambdaStore } from './lambda-service.js';

const config = await lambdaConfig([]);
const repositories = createRepositories(lambdaStore(config));
const metrics = emfMetrics();

export interface ReconcileSummary {
  olderThanSeconds: number;
  settled: number;
  requestIds: string[];
}

const olderThanSeconds = config.RECONCILE_AFTER_SECONDS ?? DEFAULT_RECONCILE_AGE_SECONDS;

export async function handler(): Promise<ReconcileSummary> {
  const { settled, entries } = await reconcile({ repositories, config }, olderThanSeconds);
  // Every run, zero included, so the metric also shows that the schedule runs.
  metrics.count('ReconcileSettled', settled);
  return {
    olderThanSeconds,
    settled,
    requestIds: entries.map((entry) => entry.requestId),
  };
}
