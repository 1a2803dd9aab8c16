import { createHash } from 'node:crypto';
import { findRegistryForExtension } from '../db/repositories/providers.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { tldProviderFields } from '../model/provider.ts';
import type { TldInfo } from './tld-info-view.ts';

/**
 * A TLD's metadata (`GET /v2/tlds/{tld}/info`): the registry that serves it, found by the
 * longest-match rule a transfer uses (`co.uk` before `uk`; `org.uk`, served by no registry of its
 * own, by `uk`'s), with its rules and the rest of the metadata the SDKs read. Configuration,
 * readable by every authenticated caller. One BatchGet of the extension index.
 */
export async function tldInfo(tld: string): Promise<TldInfo> {
  const found = await findRegistryForExtension(tld);
  if (!found) throw new ObjectDoesNotExist('TLD', tld);
  const { provider } = found;
  const metadata: TldInfo['metadata'] = { ...provider.tldMetadata };
  for (const field of tldProviderFields) {
    const value = provider.metadata[field];
    if (value !== undefined) Object.assign(metadata, { [field]: value });
  }
  return {
    hash: createHash('sha256').update(JSON.stringify(metadata)).digest('hex'),
    applicableFor: provider.metadata.possibleDomainExtensions ?? [found.extension],
    provider: provider.name,
    metadata,
  };
}
