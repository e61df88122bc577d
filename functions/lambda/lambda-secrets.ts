/**
 * The settings a deployed function keeps in Secrets Manager (SECRET_SETTINGS in schemas/functions.ts):
 * for each `<SETTING>_SECRET_ARN` in the environment, the secret's string value, fetched once at
 * init. A secret that cannot be read fails the init phase naming the variable, rather than serving
 * without the upstream key or the SOCKS relay (Lambda runs the init again on the next request).
 * The client is imported only when a function has a secret to read: esbuild keeps it in the bundle
 * but unevaluated, so functions without secrets (websites, pages) pay nothing at cold start.
 */
import {
  SECRET_SETTINGS,
  type SecretSetting,
  secretArnVariable,
} from '../../schemas/function-conventions.js';
import { ConfigError } from '../../shared/config.js';

type Environment = Record<string, string | undefined>;

export async function secretSettings(
  env: Environment = process.env,
): Promise<Partial<Record<SecretSetting, string>>> {
  const wanted = SECRET_SETTINGS.flatMap((setting) => {
    const arn = env[secretArnVariable(setting)];
    return arn ? [{ setting, arn }] : [];
  });
  if (wanted.length === 0) return {};
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  // The endpoint is AWS's unless AWS_ENDPOINT_URL_SECRETS_MANAGER names another (the SDK reads it).
  const client = new SecretsManagerClient({ region: env.AWS_REGION });
  try {
    const values = await Promise.all(
      wanted.map(async ({ setting, arn }) => {
        try {
          const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
          if (!SecretString) throw new Error('the secret has no string value');
          return [setting, SecretString] as const;
        } catch (error) {
          throw new ConfigError(
            `Invalid configuration: ${secretArnVariable(setting)}: cannot read ${arn}: ${(error as Error).message}`,
            { cause: error },
          );
        }
      }),
    );
    return Object.fromEntries(values);
  } finally {
    client.destroy();
  }
}
