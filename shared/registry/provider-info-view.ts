import * as v from 'valibot';
import { ProviderMetadata } from '../model/provider.ts';

/**
 * A registry's metadata as the API answers it (contract 3.4). The use case (provider-info.ts) takes
 * only the type, so the schema weighs nothing in its function; the route's API description
 * publishes it.
 */
export const ProviderInfo = v.strictObject({ name: v.string(), metadata: ProviderMetadata });
export type ProviderInfo = v.InferOutput<typeof ProviderInfo>;
