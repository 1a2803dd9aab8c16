import { inject } from 'vitest';
import { getProvider, putProvider } from '../../shared/db/repositories/providers.ts';
import { refreshRegistryMetadata } from '../../shared/registry/refresh-metadata.ts';
import { rtrRegistry } from '../../shared/registry/rtr.ts';
import { startUpstream } from './upstream.ts';

// Apart from ./upstream.ts: importing the refresh loads the registry gateway chosen by the
// environment, which a test that chooses the upstream account itself must not load early.

/**
 * The registry-metadata job's flow for the table-grants test: an upstream sandbox whose sidn rules
 * differ from the table's, and the refresh run (through `record`) with a gateway to it, so that it
 * reads and writes what the job does. Runs in a file whose own gateway is the sandbox.
 */
export async function registryMetadataFlow(record: (run: () => Promise<unknown>) => Promise<unknown>): Promise<void> {
  const upstream = await startUpstream(inject('dynamodbEndpoint'));
  const key = process.env.RTR_API_KEY;
  process.env.RTR_API_KEY = 'demo-key';
  try {
    const sidn = await getProvider('REGISTRY', 'sidn');
    if (!sidn) throw new Error('no sidn');
    await putProvider({ ...sidn, metadata: { ...sidn.metadata, transferDomainPeriods: [12, 120] } });
    const gateway = rtrRegistry({ apiUrl: upstream.url, customer: 'demo', registries: ['sidn'], timeoutMs: 10_000 });
    await record(() => refreshRegistryMetadata(gateway));
  } finally {
    if (key === undefined) delete process.env.RTR_API_KEY;
    else process.env.RTR_API_KEY = key;
    await upstream.stop();
  }
}
