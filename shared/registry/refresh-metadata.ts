import { getProvider, putProvider } from '../db/repositories/providers.ts';
import { logger } from '../logger.ts';
import type { ProviderRecord } from '../model/provider.ts';
import type { RegistryGateway } from './gateway.ts';
import { registryGateway } from './select.ts';

/**
 * The scheduled job `registry-metadata` (functions/registry-metadata): copies the rules and TLD
 * metadata of every registry served through the gateway from the counterpart that holds them (an
 * upstream account) into the table, where validation, provider info and TLD info read them. A
 * registry whose metadata did not change is not written. One failing registry is logged and does
 * not stop the others. With the sandbox registry, whose rules are the dataset's, there is nothing
 * to copy.
 */

export interface MetadataRefresh {
  /** Registries asked about. */
  registries: number;
  /** Registries whose stored metadata changed. */
  changed: string[];
  /** Registries the counterpart could not tell about this time. */
  failed: string[];
}

/** JSON with object keys sorted, so that two equal records compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, val: unknown) =>
    val && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}

/** Copies each registry's metadata from the gateway's counterpart; undefined when the gateway keeps none. */
export async function refreshRegistryMetadata(gateway?: RegistryGateway): Promise<MetadataRefresh | undefined> {
  const source = gateway ?? (await registryGateway());
  if (!source.registryMetadata || !source.metadataRegistries) return undefined;
  const summary: MetadataRefresh = { registries: source.metadataRegistries.length, changed: [], failed: [] };
  for (const name of source.metadataRegistries) {
    try {
      const told = await source.registryMetadata(name);
      const record: ProviderRecord = {
        kind: 'REGISTRY',
        name,
        metadata: told.metadata,
        ...(told.tldMetadata ? { tldMetadata: told.tldMetadata } : {}),
      };
      const stored = await getProvider('REGISTRY', name);
      if (stored && canonical(stored) === canonical(record)) continue;
      await putProvider(record);
      summary.changed.push(name);
    } catch (error) {
      summary.failed.push(name);
      logger.error('registry metadata refresh failed', { registry: name, error: error as Error });
    }
  }
  return summary;
}
