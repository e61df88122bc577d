/**
 * An operation as the pipeline runs it: its catalog definition, its run function and its price.
 */
import type { z } from 'zod';
import type { OperationDefinition } from '../../schemas/catalog.js';
import type { RunMeta } from '../../schemas/envelope.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiFamily } from '../paging/cursors.js';
import type { Store } from '../store/store.js';

export interface RunContext {
  /** Aborted when the operation's deadline passes. */
  signal: AbortSignal;
  operationId: string;
  /** The endpoint family the call came through: cursors of one family are not valid in the other. */
  api: ApiFamily;
  requestId: string;
  accountId: string;
  clock: Clock;
}

export interface RunResult {
  data: unknown;
  meta?: RunMeta;
}

/** What run functions may be built from: the process's store, clock and config. */
export interface RunnerRuntime {
  store: Store;
  clock: Clock;
  config: Config;
  logger: Logger;
  metrics: Metrics;
}

/**
 * An operation's run function. `refuseInput`, when present, checks input in ways the catalog's
 * schemas cannot (they import only zod), e.g. whether a name can be spelled for an email address:
 * it throws an InvalidRequestError, and runs after validation and before admission, so such a
 * refusal costs no credit and no rate-limit request, like every other 400.
 */
export type Runner<Input = never> = ((input: Input, context: RunContext) => Promise<RunResult>) & {
  refuseInput?: (input: Input) => void;
};

/** The run functions of one module, keyed by operation id; each takes its schema's parsed query. */
export type RunnerMap<Definitions extends OperationDefinition> = {
  [D in Definitions as D['id']]: Runner<z.output<D['query']>>;
};

export interface RegisteredOperation {
  definition: OperationDefinition;
  run: Runner<never>;
  /** Price in credits after `PRICE_OVERRIDES`. */
  price: number;
}

export function registerOperations(
  definitions: readonly OperationDefinition[],
  runners: Record<string, Runner<never>>,
  priceOverrides: Record<string, number>,
): RegisteredOperation[] {
  return definitions.map((definition) => {
    const run = runners[definition.id];
    if (!run) throw new Error(`Operation ${definition.id} has no run function.`);
    return { definition, run, price: priceOverrides[definition.id] ?? definition.price };
  });
}
