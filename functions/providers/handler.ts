import { endpoint } from '../../shared/http/pipeline.ts';
import { listRegistryProviders } from '../../shared/registry/list-providers.ts';
import { ProviderListRequest } from './schema.ts';

/** GET /v2/providers: the registries and the TLDs each serves, a page at a time. */
export const handler = endpoint({ route: 'providers', request: ProviderListRequest }, ({ input }) => listRegistryProviders(input.query));
