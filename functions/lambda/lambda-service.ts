/**
 * What every Lambda function builds at init: the config (a bad setting, an unreadable secret or an
 * unreadable dataset object fails the init phase, naming the variable; a dataset in S3 is copied to
 * ephemeral storage), the DynamoDB store, and the service over the operations the function runs. Called
 * at module scope by each entry, so all of it lives as long as the warm container.
 */

import { DATA_FAMILIES } from '../../schemas/function-conventions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { type Config, ConfigError, loadConfig } from '../../shared/config.js';
import type {
  ImplementationFactory,
  OperationImplementation,
  RunnerRuntime,
} from '../../shared/pipeline/operation.js';
import { createService } from '../../shared/service.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { createDynamoTable } from '../../shared/store/dynamodb/table.js';
import type { Store } from '../../shared/store/store.js';
import { emfMetrics } from './emf-metrics.js';
import { secretSettings } from './lambda-secrets.js';
import { DATASET_REQUIRED_ON_LAMBDA } from './no-sample-database.js';
import { copyDatasetFromS3, isS3Uri } from './s3-dataset.js';

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

/** The config, with the secrets the environment names by ARN, refusing what cannot work on Lambda. */
export async function lambdaConfig(operations: readonly OperationDefinition[]): Promise<Config> {
  const config = loadConfig({ ...process.env, ...(await secretSettings()) });
  const readsDataset = operations.some((operation) => DATA_FAMILIES.includes(operation.family));
  // Locally an unset DATASET means "build the generated sample"; a function has no generator
  // (no-sample-database.ts), so it refuses at init rather than at its first lookup.
  if (!readsDataset || config.DATA_SOURCE !== 'dataset') return config;
  if (config.DATASET === undefined) throw new ConfigError(DATASET_REQUIRED_ON_LAMBDA);
  // An imported database in S3 is copied to ephemeral storage once per environment, here at init.
  if (isS3Uri(config.DATASET))
    return { ...config, DATASET: await copyDatasetFromS3(config.DATASET, config.AWS_REGION) };
  return config;
}

export function lambdaStore(config: Config): Store {
  return createDynamoStore(
    createDynamoTable({
      table: config.DYNAMODB_TABLE,
      region: config.AWS_REGION,
      endpoint: config.DYNAMODB_ENDPOINT,
      // The role's credentials, also against another endpoint (start:synth checks its grants).
      signAs: 'environment',
    }),
  );
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
