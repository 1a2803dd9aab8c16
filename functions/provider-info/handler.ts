import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { registryInfo } from './provider-info.ts';
import { ProviderInfoRequest } from './schema.ts';

export const handler = endpoint({ route: 'provider-info', request: ProviderInfoRequest }, async ({ input }) =>
  ok(await registryInfo(input.path.name)),
);
