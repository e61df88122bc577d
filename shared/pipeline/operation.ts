/**
 * An operation as the pipeline runs it: its catalog entry, its run function and its price, and how
 * a family's run functions are paired with their entries (checked by tsc).
 */
import type * as z from 'zod';
import type { RunMeta } from '../../schemas/envelope.js';
import type { OperationDefinition, OperationVariant } from '../../schemas/operation-definition.js';
import type { Principal } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiFamily } from '../paging/cursors.js';
import type { Store } from '../store/store.js';
import { type RawInput, validateInput } from './validate-input.js';

export interface RunContext {
  /** Aborted when the operation's deadline passes. */
  signal: AbortSignal;
  operationId: string;
  /** The endpoint family the call came through: cursors of one family are not valid in the other. */
  api: ApiFamily;
  requestId: string;
  accountId: string;
  /** Who calls: the account reads (schemas/operations/account.ts) answer about its account and key. */
  principal: Principal;
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

/** What an operation's run function receives: the output of its query schema. */
export type InputOf<D extends OperationDefinition> = z.output<D['query']>;

/** An operation's run function. */
export type Runner<Input> = (input: Input, context: RunContext) => Promise<RunResult>;

/** The run of one request's input, once it has been accepted. */
export type AcceptedRun = (context: RunContext) => Promise<RunResult>;

/** The run functions of a family, keyed by operation id: tsc wants exactly one per definition. */
export type RunnerMap<Definitions extends OperationDefinition> = {
  [D in Definitions as D['id']]: Runner<InputOf<D>>;
};

/**
 * Checks of input the catalog's schemas cannot make (they import only zod), e.g. whether a name can
 * be spelled for an email address: each throws (or rejects with) an InvalidRequestError, after
 * validation and before admission, so such a refusal costs no credit and no rate-limit request,
 * like every other 400. A check may be async, to load what it needs at its first use.
 */
export type InputCheck<Input> = (input: Input) => void | Promise<void>;

export type InputChecks<Definitions extends OperationDefinition> = {
  [D in Definitions as D['id']]?: InputCheck<InputOf<D>>;
};

/** One operation's run function and input check, paired with its entry by id. */
export interface OperationImplementation {
  id: string;
  run: Runner<never>;
  refuseInput?: InputCheck<never>;
}

/**
 * The implementations of a family's operations, checked by tsc against the family's entries: a
 * missing, misspelled or mistyped run function fails the type check, not a request.
 */
export function implement<const Definitions extends OperationDefinition>(
  definitions: readonly Definitions[],
  runners: NoInfer<RunnerMap<Definitions>>,
  checks: NoInfer<InputChecks<Definitions>> = {},
): OperationImplementation[] {
  // Keyed by the definitions' own ids, which is what the mapped types above are keyed by.
  const byId = new Map<string, Runner<never>>(Object.entries(runners));
  const checkById = new Map<string, InputCheck<never>>(Object.entries(checks));
  return definitions.map(({ id }) => {
    const run = byId.get(id);
    if (!run) throw new Error(`Operation ${id} has no run function.`);
    const refuseInput = checkById.get(id);
    return refuseInput ? { id, run, refuseInput } : { id, run };
  });
}

/** Builds the implementations of the operations a process serves from its runtime. */
export type ImplementationFactory = (runtime: RunnerRuntime) => readonly OperationImplementation[];

export interface RegisteredOperation {
  definition: OperationDefinition;
  /** Price in credits after `PRICE_OVERRIDES`. */
  price: number;
  /**
   * Validates a request's input against the entry's schema and the operation's own check (both
   * throw an InvalidRequestError), and gives the run of that input.
   */
  accept(input: RawInput, variant?: OperationVariant): Promise<AcceptedRun>;
}

/** Pairs each served entry with its implementation; an entry without one fails here, at start-up. */
export function registerOperations(
  definitions: readonly OperationDefinition[],
  implementations: readonly OperationImplementation[],
  priceOverrides: Readonly<Record<string, number>>,
): RegisteredOperation[] {
  const byId = new Map(implementations.map((implementation) => [implementation.id, implementation]));
  return definitions.map((definition) => {
    const implementation = byId.get(definition.id);
    if (!implementation) throw new Error(`Operation ${definition.id} has no run function.`);
    return bindOperation(definition, implementation, priceOverrides[definition.id] ?? definition.price);
  });
}

/**
 * The one place the run function's input type is erased: what reaches it has passed the entry's own
 * query schema, whose output type is what `implement` checked the run function against.
 */
function bindOperation(
  definition: OperationDefinition,
  implementation: OperationImplementation,
  price: number,
): RegisteredOperation {
  const run = implementation.run as Runner<unknown>;
  const refuseInput = implementation.refuseInput as InputCheck<unknown> | undefined;
  return {
    definition,
    price,
    async accept(input, variant) {
      const validated = validateInput(definition, input, variant);
      await refuseInput?.(validated);
      return (context) => run(validated, context);
    },
  };
}

/** Registered operations that only describe themselves: their runs happen in other functions. */
export function describedOperations(
  definitions: readonly OperationDefinition[],
  priceOverrides: Readonly<Record<string, number>>,
): RegisteredOperation[] {
  return definitions.map((definition) =>
    bindOperation(
      definition,
      {
        id: definition.id,
        run: async () => {
          throw new Error(`${definition.id} runs in its own function, not in this one.`);
        },
      },
      priceOverrides[definition.id] ?? definition.price,
    ),
  );
}
