import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  FlushStageAuthorizersCacheCommand,
  GetApiKeysCommand,
  GetUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { usageIdentifier } from '../shared/auth/api-keys.ts';

/**
 * Registers a customer key's counterpart in the deployed stack's usage plan (infra/usage-plan.ts):
 * an API Gateway API key whose value is the key's usage identifier (derived from the stored hash,
 * never the key itself), added to the plan. Idempotent: an existing key or membership is kept.
 */

export interface KeyOwner {
  keyHash: string;
  customer: string;
  user: string;
}

/** What registering did: created the API Gateway key and/or the plan membership, or found them. */
export interface Registration {
  name: string;
  apiKeyId: string;
  created: boolean;
  addedToPlan: boolean;
}

/** The API Gateway key's name: who it is for and the start of the hash (to tell keys of one user apart). */
export function usageKeyName(owner: KeyOwner): string {
  return `registrar-${owner.customer}-${owner.user}-${owner.keyHash.slice(0, 12)}`;
}

/** Creates (or finds) the key's API Gateway key and adds it to the usage plan. */
export async function registerUsageKey(client: APIGatewayClient, usagePlanId: string, owner: KeyOwner): Promise<Registration> {
  const name = usageKeyName(owner);
  const found = await client.send(new GetApiKeysCommand({ nameQuery: name, limit: 500 }));
  let apiKeyId = found.items?.find((k) => k.name === name)?.id;
  const created = apiKeyId === undefined;
  if (apiKeyId === undefined) {
    const out = await client.send(
      new CreateApiKeyCommand({
        name,
        value: usageIdentifier(owner.keyHash),
        enabled: true,
        description: `Usage-plan counterpart of the API key of ${owner.customer}/${owner.user} (registrar).`,
      }),
    );
    if (!out.id) throw new Error(`API Gateway created key ${name} without an id`);
    apiKeyId = out.id;
  }
  try {
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }));
    return { name, apiKeyId, created, addedToPlan: true };
  } catch (error) {
    // Already in the plan: nothing to do.
    if ((error as Error).name === 'ConflictException') return { name, apiKeyId, created, addedToPlan: false };
    throw error;
  }
}

/** What retiring a revoked key did: its API Gateway key removed (if it had one), and the stages whose authorizer cache was flushed. */
export interface Retirement {
  name: string;
  removed: boolean;
  flushed: string[];
}

/**
 * Makes a revoked key stop working at once in the deployed API: its API Gateway key leaves the
 * usage plan and is deleted, and the authorizer cache of every stage of the plan is flushed (API
 * Gateway would otherwise keep the key's granted answer for up to 300 s). Idempotent.
 */
export async function retireUsageKey(client: APIGatewayClient, usagePlanId: string, owner: KeyOwner): Promise<Retirement> {
  const name = usageKeyName(owner);
  const found = await client.send(new GetApiKeysCommand({ nameQuery: name, limit: 500 }));
  const apiKeyId = found.items?.find((k) => k.name === name)?.id;
  if (apiKeyId !== undefined) {
    await ignoreNotFound(client.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId })));
    await ignoreNotFound(client.send(new DeleteApiKeyCommand({ apiKey: apiKeyId })));
  }
  const plan = await client.send(new GetUsagePlanCommand({ usagePlanId }));
  const flushed: string[] = [];
  for (const { apiId, stage } of plan.apiStages ?? []) {
    if (!apiId || !stage) continue;
    await client.send(new FlushStageAuthorizersCacheCommand({ restApiId: apiId, stageName: stage }));
    flushed.push(`${apiId}/${stage}`);
  }
  return { name, removed: apiKeyId !== undefined, flushed };
}

/** A deletion of something already gone is done. */
async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if ((error as Error).name !== 'NotFoundException') throw error;
  }
}
