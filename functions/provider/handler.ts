import { endpoint } from '../../shared/http/pipeline.ts';
import { registryProvider } from '../../shared/registry/provider.ts';
import { ProviderRequest } from './schema.ts';

/** GET /v2/providers/{name} and GET /v2/providers/REGISTRY/{name}: a registry and the TLDs it serves. */
export const handler = endpoint({ route: 'provider', request: ProviderRequest }, ({ input }) => registryProvider(input.path.name));
