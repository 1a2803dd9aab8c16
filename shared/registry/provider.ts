import { getProvider } from '../db/repositories/providers.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { Provider } from './provider-view.ts';

/** A registry and the TLDs it serves (`GET /v2/providers/{name}`): configuration, readable by every authenticated caller. */
export async function registryProvider(name: string): Promise<Provider> {
  const provider = await getProvider('REGISTRY', name);
  if (!provider) throw new ObjectDoesNotExist('Provider', name);
  return { name: provider.name, tlds: provider.metadata.possibleDomainExtensions ?? [] };
}
