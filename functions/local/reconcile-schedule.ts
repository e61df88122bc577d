/**
 * `npm start` reconciles by itself: the settlement the scheduled function runs on AWS
 * (functions/lambda/reconcile-handler.ts), with the same age threshold (RECONCILE_AFTER_SECONDS,
 * unset: the longest operation deadline plus a minute), once at start-up and then every
 * RECONCILE_INTERVAL_SECONDS. It refunds the debits that a crash (or a settlement write that could not
 * land) left in flight, so credits held by a dead process come back without an operator.
 */
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import type { Repositories } from '../../shared/service.js';
import { DEFAULT_RECONCILE_AGE_SECONDS, reconcile } from '../cli/commands.js';

/** Starts the schedule (its first run now); its timer never holds the process open. */
export function reconcileOnSchedule(repositories: Repositories, config: Config, logger: Logger): void {
  const olderThanSeconds = config.RECONCILE_AFTER_SECONDS ?? DEFAULT_RECONCILE_AGE_SECONDS;
  const run = async () => {
    try {
      const { settled, entries } = await reconcile({ repositories, config }, olderThanSeconds);
      if (settled > 0) {
        const requestIds = entries.map((entry) => entry.requestId);
        logger.info({ settled, requestIds, olderThanSeconds }, 'reconciled in-flight debits (refunded)');
      }
    } catch (error) {
      logger.warn({ err: error }, 'reconcile failed; the next run tries again');
    }
    // The next run is timed from the end of this one, so two never overlap.
    setTimeout(run, config.RECONCILE_INTERVAL_SECONDS * 1000).unref();
  };
  void run();
}
