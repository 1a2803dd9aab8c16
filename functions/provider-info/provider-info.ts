import { getProvider } from '../../shared/db/repositories/providers.ts';
import { ObjectDoesNotExist } from '../../shared/errors.ts';
import type { ProviderMetadata } from '../../shared/model/provider.ts';

/** Contract 3.4 response body. */
export interface ProviderInfo {
  name: string;
  metadata: ProviderMetadata;
}

/** A registry's metadata (spec 2.10): configuration, readable by every authenticated caller. */
export async function registryInfo(name: string): Promise<ProviderInfo> {
  const provider = await getProvider('REGISTRY', name);
  if (!provider) throw new ObjectDoesNotExist('Provider', name);
  return { name: provider.name, metadata: provider.metadata };
}
