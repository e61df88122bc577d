/**
 * The scheduled reconcile (EventBridge, every few minutes): the same settlement as `npm run admin --
 * reconcile`, refunding in-flight debits older than the longest deadline that a timed-out or crashed
 * function left behind. Answers a JSON summary, which lands in the function's log.
 */
import { createRepositories } from '../../shared/service.js';
import { DEFAULT_RECONCILE_AGE_SECONDS, reconcile } from '../cli/commands.js';
import { lambdaConfig, lambdaStore } from './lambda-service.js';

const config = await lambdaConfig([]);
const repositories = createRepositories(lambdaStore(config));

export interface ReconcileSummary {
  olderThanSeconds: number;
  settled: number;
  requestIds: string[];
}

export async function handler(): Promise<ReconcileSummary> {
  const { settled, entries } = await reconcile({ repositories, config }, DEFAULT_RECONCILE_AGE_SECONDS);
  return {
    olderThanSeconds: DEFAULT_RECONCILE_AGE_SECONDS,
    settled,
    requestIds: entries.map((entry) => entry.requestId),
  };
}
