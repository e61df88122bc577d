/**
 * EventBridge's scheduled rules, locally: each enabled rule of the templates with a `rate(...)`
 * expression invokes its target functions on the Lambda host that often, with the event EventBridge
 * sends (`aws.events`, `Scheduled Event`). cron() rules never fire here (no interval to run them at)
 * unless a test interval is given, which replaces every rule's own.
 */
import type { Logger } from '../shared/logger.js';
import type { Deployment } from './deployment-model.js';
import type { FunctionHost } from './function-host.js';

export interface ScheduledRulesOptions {
  deployment: Deployment;
  host: FunctionHost;
  logger: Logger;
  /** Runs every rule this often instead of its own rate (tests: START_SYNTH_SCHEDULE_SECONDS). */
  everyMs?: number;
}

/** Starts the rules' timers; the function returned stops them. */
export function startScheduledRules({
  deployment,
  host,
  logger,
  everyMs,
}: ScheduledRulesOptions): () => void {
  const timers = deployment.schedules.flatMap((schedule) => {
    const every = everyMs ?? schedule.intervalMs;
    if (every === undefined) return [];
    return [
      setInterval(() => {
        for (const arn of schedule.targetArns) {
          const fn = host.find(arn);
          if (!fn) continue;
          host
            .invoke(fn, {
              source: 'aws.events',
              'detail-type': 'Scheduled Event',
              detail: {},
              time: new Date().toISOString(),
            })
            .then((outcome) => logger.info({ function: fn.name, outcome }, 'scheduled run'))
            .catch((error: unknown) =>
              logger.error({ err: error, function: fn.name }, 'scheduled run failed'),
            );
        }
      }, every),
    ];
  });
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
