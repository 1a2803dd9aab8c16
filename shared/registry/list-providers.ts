import { listProviders } from '../db/repositories/providers.ts';
import { type CataloguePage, type CatalogueQuery, catalogueSlice } from '../schemas/listing.ts';
import type { Provider } from './provider-view.ts';

/**
 * The registries (`GET /v2/providers`, the TS SDK's provider.list): configuration, readable by
 * every authenticated caller, a page at a time, by name; `q` searches names and the TLDs served.
 */
export async function listRegistryProviders(query: CatalogueQuery): Promise<CataloguePage<Provider>> {
  const providers = (await listProviders('REGISTRY')).map((p) => ({ name: p.name, tlds: p.metadata.possibleDomainExtensions ?? [] }));
  return catalogueSlice(
    providers,
    query,
    (p) => p.name,
    (p) => [p.name, ...p.tlds],
  );
}
