import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ProviderUnavailable } from '../errors.ts';
import type { StackSecret } from '../integrations.ts';
import { logger } from '../logger.ts';

/**
 * The stack's secrets, read at run time: deployed, a function is told where its secret is
 * (`<NAME>_ARN`, see shared/routes.ts StackSecret) and reads it from Secrets Manager, kept in
 * memory for `SECRETS_CACHE_SECONDS` (default 300; Powertools for AWS Lambda, parameters), so the
 * value is never in its environment and a rotated secret is picked up within that time. The local
 * sandbox and the tests hand the value itself (`<NAME>`). Neither set: the function refuses to
 * start (`requireSecret`), never falling back to a constant.
 */

let client: SecretsManagerClient | undefined;
let provider: SecretsProvider | undefined;

/** The Secrets Manager client every secret is read with (tests inject faults and answers at it). */
export function secretsClient(): SecretsManagerClient {
  client ??= new SecretsManagerClient({});
  return client;
}

function cacheSeconds(): number {
  const seconds = Number(process.env.SECRETS_CACHE_SECONDS ?? 300);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 300;
}

/** Throws, at start, unless the secret's ARN (deployed) or its value (local sandbox) is set. */
export function requireSecret(name: StackSecret): void {
  if (!process.env[`${name}_ARN`] && !process.env[name]) {
    throw new Error(`${name}_ARN is not set: this function reads ${name} from Secrets Manager (the local sandbox sets ${name} itself)`);
  }
}

/** The secret's value: from Secrets Manager (cached) when its ARN is set, else the local sandbox's value. */
export async function secretValue(name: StackSecret): Promise<string> {
  const arn = process.env[`${name}_ARN`];
  if (!arn) {
    const local = process.env[name];
    if (!local) throw new Error(`${name} is not set`);
    return local;
  }
  provider ??= new SecretsProvider({ awsSdkV3Client: secretsClient() });
  let value: unknown;
  try {
    value = await provider.get(arn, { maxAge: cacheSeconds() });
  } catch (error) {
    // Logged with the request id at the boundary; the caller may retry (503), nothing is signed meanwhile.
    logger.error('reading a secret from Secrets Manager failed', { secret: name, error: error as Error });
    throw new ProviderUnavailable();
  }
  if (typeof value !== 'string' || value === '') throw new Error(`Secret ${name} has no string value`);
  return value;
}

/** Drops the cached values (tests, after changing a secret). */
export function forgetSecrets(): void {
  provider?.clearCache();
}
