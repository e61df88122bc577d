/**
 * What every Lambda function but pages builds at init: the config (lambda-config.ts), the DynamoDB
 * store (lambda-store.ts), and the service over the operations the function runs. Called at module
 * scope by each entry, so all of it lives as long as the warm container.
 */

import type { OperationDefinition } from '../../schemas/operation-definition.js';
import type {
  ImplementationFactory,
  OperationImplementation,
  RunnerRuntime,
} from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import { emfMetrics } from './emf-metrics.js';
import { lambdaConfig } from './lambda-config.js';
import { lambdaStore } from './lambda-store.js';

export interface LambdaServiceOptions {
  /** The operations the function runs; none for /mcp, the pages and reconcile. */
  operations: readonly OperationDefinition[];
  implementations: ImplementationFactory;
  /**
   * False for a function that only checks the operations' inputs (the batches function): it reads no
   * dataset, so it needs no DATASET.
   */
  runs?: boolean;
}

/** The service, and the store it runs on (the batch functions use its batch records directly). */
export async function createLambdaService(options: LambdaServiceOptions) {
  const config = await lambdaConfig(options.runs === false ? [] : options.operations);
  const store = lambdaStore(config);
  const service = createService({
    config,
    store,
    implementations: options.implementations,
    metrics: emfMetrics(),
    operations: options.operations,
  });
  return Object.assign(service, { store });
}

/**
 * A family's module (shared/operations/<family>.ts) as a function's entry imports it: its catalog
 * entries and its run functions, with the dependencies they build by default. A function gets its
 * operations from here, never from the whole catalog, so its cold start constructs only its family's
 * schemas.
 */
export interface LambdaFamily {
  operations: readonly OperationDefinition[];
  createImplementations(runtime: RunnerRuntime): OperationImplementation[];
}

/** The implementations of the families a function's operations belong to. */
export function implementationsOf(families: readonly LambdaFamily[]): ImplementationFactory {
  return (runtime) => families.flatMap((family) => family.createImplementations(runtime));
}
