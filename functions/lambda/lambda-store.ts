/** A Lambda function's store: the DynamoDB table the configuration names, as the function's role. */
import type { Config } from '../../shared/config.js';
import { createDynamoStore } from '../../shared/store/dynamodb/dynamodb-store.js';
import { createDynamoTable } from '../../shared/store/dynamodb/table.js';
import type { Store } from '../../shared/store/store.js';

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
