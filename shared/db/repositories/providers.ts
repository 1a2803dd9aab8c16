import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { extensionCandidates, ProviderKind, ProviderMetadata } from '../../registry/metadata.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, parseItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'provider';
const extensionEntity = 'providerExtension';

/** A provider (a registry, as the service sees it) and its metadata. */
export const ProviderRecord = v.object({
  kind: ProviderKind,
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9\-_.]*$/)),
  metadata: ProviderMetadata,
});
export type ProviderRecord = v.InferOutput<typeof ProviderRecord>;

const ExtensionRecord = v.object({ extension: v.string(), kind: ProviderKind, provider: v.string() });

/**
 * Stores a provider and one index item per extension it serves, in one transaction. With
 * `ifAbsent`, an existing provider is left untouched (false).
 */
export async function putProvider(record: ProviderRecord, ifAbsent = false): Promise<boolean> {
  const extensions = record.metadata.possibleDomainExtensions ?? [];
  if (extensions.length === 0) {
    return putItem(toItem(keys.provider(record.kind, record.name), entity, record), ifAbsent);
  }
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: toItem(keys.provider(record.kind, record.name), entity, record),
              ...(ifAbsent ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
            },
          },
          ...extensions.map((extension) => ({
            Put: {
              TableName: tableName(),
              Item: toItem(keys.providerExtension(extension), extensionEntity, {
                extension,
                kind: record.kind,
                provider: record.name,
              }),
            },
          })),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (ifAbsent && (error as Error).name === 'TransactionCanceledException') {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
    }
    throw error;
  }
}

/** One provider by kind and name (one GetItem). */
export function getProvider(kind: ProviderKind, name: string): Promise<ProviderRecord | undefined> {
  return getItem(keys.provider(kind, name), ProviderRecord, entity);
}

/**
 * The registry serving a domain, by longest matching extension (`co.uk` before `uk`): one
 * BatchGet of the extension index, then one GetItem of the provider.
 */
export async function findRegistryForDomain(
  domainName: string,
): Promise<{ extension: string; provider: ProviderRecord } | undefined> {
  const candidates = extensionCandidates(domainName);
  if (candidates.length === 0) return undefined;
  const items = await batchGetAll(candidates.map((c) => keys.providerExtension(c)));
  const found = items.map((item) => parseItem(ExtensionRecord, extensionEntity, item));
  const best = candidates.map((c) => found.find((f) => f.extension === c)).find((f) => f !== undefined);
  if (!best) return undefined;
  const provider = await getProvider(best.kind, best.provider);
  return provider ? { extension: best.extension, provider } : undefined;
}
