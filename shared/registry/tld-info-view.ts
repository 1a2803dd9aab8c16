import * as v from 'valibot';
import { ProviderMetadata, TldMetadata, tldProviderFields } from '../model/provider.ts';

/**
 * The TLD info of `GET /v2/tlds/{tld}/info`, in the shape the SDKs' models read (the TS SDK's
 * `Metadata`, the PHP SDK's `TLDInfo` and `TLDMetaData`), as a schema: the OpenAPI document and the
 * answer checks use it, the use case takes its type.
 */

/** A TLD's metadata: the registry's rules for it and the rest the SDKs read (every field present when the registry's data has it). */
export const TldInfoMetadata = v.strictObject({
  ...v.pick(ProviderMetadata, tldProviderFields).entries,
  ...v.partial(TldMetadata).entries,
});

export const TldInfo = v.strictObject({
  hash: v.pipe(v.string(), v.description('SHA-256 of the metadata (hex): it changes exactly when the metadata does.')),
  applicableFor: v.pipe(v.array(v.string()), v.description('The extensions this metadata applies to (those the registry serves).')),
  provider: v.pipe(v.string(), v.description('The registry serving the TLD.')),
  metadata: TldInfoMetadata,
});
export type TldInfo = v.InferOutput<typeof TldInfo>;
