import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { extensionCandidates, ProviderKind, ProviderRecord } from '../../model/provider.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, listByGsi1, parseItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'provider';
const extensionEntity = 'providerExtension';

/**
 * An extension index item: which provider serves the extension, with a copy of that provider's
 * record (written in the same transaction), so a domain's registry is found in one read.
 */
const ExtensionRecord = v.object({ extension: v.string(), kind: ProviderKind, provider: v.string(), record: v.optional(ProviderRecord) });

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
                record,
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
  const { pk, sk } = keys.provider(kind, name);
  return getItem({ pk, sk }, ProviderRecord, entity);
}

/** Every provider of a kind, by name (one Query of gsi1: a few dozen items). */
export function listProviders(kind: ProviderKind): Promise<ProviderRecord[]> {
  return listByGsi1(keys.providersOfKind(kind).gsi1pk, ProviderRecord, entity);
}

/** The extension index keys that may name a domain's registry, longest extension first. */
export function registryCandidates(domainName: string): { extension: string; key: { pk: string; sk: string } }[] {
  return extensionCandidates(domainName).map((extension) => {
    const { pk, sk } = keys.providerExtension(extension);
    return { extension, key: { pk, sk } };
  });
}

/**
 * The registry serving a domain from its extension index items as read (any order, absent ones
 * left out): the longest matching extension's provider, from the copy its index item carries
 * (one GetItem of the provider for an index item written before copies were kept).
 */
export async function registryFromExtensionItems(
  domainName: string,
  items: readonly Record<string, unknown>[],
): Promise<{ extension: string; provider: ProviderRecord } | undefined> {
  const found = items.map((item) => parseItem(ExtensionRecord, extensionEntity, item));
  const best = extensionCandidates(domainName)
    .map((c) => found.find((f) => f.extension === c))
    .find((f) => f !== undefined);
  if (!best) return undefined;
  const provider = best.record ?? (await getProvider(best.kind, best.provider));
  return provider ? { extension: best.extension, provider } : undefined;
}

/** The registry serving a domain, by longest matching extension (`co.uk` before `uk`): one BatchGet of the extension index. */
export async function findRegistryForDomain(domainName: string): Promise<{ extension: string; provider: ProviderRecord } | undefined> {
  const candidates = registryCandidates(domainName);
  if (candidates.length === 0) return undefined;
  return registryFromExtensionItems(domainName, await batchGetAll(candidates.map((c) => c.key)));
}

/**
 * The registry serving an extension (`co.uk`, `nl`), by the same longest-match rule as for a
 * domain: the extension itself, else its closest parent (`org.uk` -> `uk`). One BatchGet.
 */
export async function findRegistryForExtension(extension: string): Promise<{ extension: string; provider: ProviderRecord } | undefined> {
  // The extension candidates of any name one label below the extension: the extension, then its parents.
  return findRegistryForDomain(`name.${extension}`);
}
