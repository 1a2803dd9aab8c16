import { getProvider } from '../db/repositories/providers.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ProviderInfo } from './provider-info-view.ts';

/** A registry's metadata (spec 2.10): configuration, readable by every authenticated caller. */
export async function registryInfo(name: string): Promise<ProviderInfo> {
  const provider = await getProvider('REGISTRY', name);
  if (!provider) throw new ObjectDoesNotExist('Provider', name);
  return { name: provider.name, metadata: provider.metadata };
}
