import { endpoint } from '../../shared/http/pipeline.ts';
import { registryInfo } from '../../shared/registry/provider-info.ts';
import { ProviderInfoRequest } from './schema.ts';

/** GET /v2/providers/REGISTRY/{name}/info (spec 4.4, contract 3.4). */
export const handler = endpoint({ route: 'provider-info', request: ProviderInfoRequest }, ({ input }) => registryInfo(input.path.name));
