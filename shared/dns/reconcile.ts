import { listZoneDnsStates } from '../db/repositories/zone-dns.ts';
import { logger } from '../logger.ts';
import { countDnsMetric, dnsMetricNames } from './dns-metrics.ts';
import type { DnsProvider } from './provider.ts';
import { syncZone } from './sync.ts';

/**
 * The reconcile job's pass: every zone the sync has pushed is compared with what the provider
 * serves, whatever revision was recorded, and any difference (a record changed at the provider
 * behind the service's back, a push lost) is repaired by the same sync. Zones are taken one at a
 * time; one that fails is counted and the pass goes on. The counts go out as metrics.
 */
export interface ReconcileSummary {
  zones: number;
  repaired: number;
  recordSetsChanged: number;
  refused: number;
  failed: number;
  removed: number;
}

export async function reconcileZones(provider: DnsProvider, now?: () => Date): Promise<ReconcileSummary> {
  const summary: ReconcileSummary = { zones: 0, repaired: 0, recordSetsChanged: 0, refused: 0, failed: 0, removed: 0 };
  for (const state of await listZoneDnsStates()) {
    summary.zones++;
    try {
      const outcome = await syncZone(provider, state.domainName, { force: true, ...(now ? { now } : {}) });
      if (outcome.kind === 'served' && outcome.changes > 0) {
        summary.repaired++;
        summary.recordSetsChanged += outcome.changes;
      } else if (outcome.kind === 'refused') summary.refused++;
      else if (outcome.kind === 'removed') summary.removed++;
    } catch (error) {
      summary.failed++;
      logger.warn('reconcile: a zone could not be compared', { domainName: state.domainName, error: error as Error });
    }
  }
  countDnsMetric(dnsMetricNames.zonesReconciled, summary.zones);
  countDnsMetric(dnsMetricNames.zonesRepaired, summary.repaired);
  countDnsMetric(dnsMetricNames.recordSetsRepaired, summary.recordSetsChanged);
  return summary;
}
