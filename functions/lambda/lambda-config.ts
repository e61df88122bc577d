/**
 * A Lambda function's configuration, read at init: a bad setting, an unreadable secret or an
 * unreadable dataset object fails the init phase, naming the variable; a dataset in S3 is copied to
 * ephemeral storage. Apart from the store (lambda-store.ts), so the pages function reads its
 * configuration without loading the DynamoDB client.
 */
import { DATA_FAMILIES } from '../../schemas/function-conventions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { type Config, ConfigError, loadConfig } from '../../shared/config.js';
import { secretSettings } from './lambda-secrets.js';
import { DATASET_REQUIRED_ON_LAMBDA } from './no-sample-database.js';
import { copyDatasetFromS3, isS3Uri } from './s3-dataset.js';

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
