import type { Context, ScheduledEvent } from 'aws-lambda';
import { publishDnsMetrics } from '../../shared/dns/dns-metrics.ts';
import { type ReconcileSummary, reconcileZones } from '../../shared/dns/reconcile.ts';
import { dnsProvider } from '../../shared/dns/select.ts';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';

/** The scheduled reconcile job (docs/dns.md): repairs every zone that drifted from the table at the DNS provider. */
export async function handler(_event: ScheduledEvent, context: Context): Promise<ReconcileSummary> {
  const provider = dnsProvider();
  try {
    const summary = await reconcileZones(provider);
    if (summary.zones > 0) logger.info('zone reconcile', { job: 'zone-reconcile', requestId: context?.awsRequestId, ...summary });
    await jobRan('zone-reconcile', summary);
    return summary;
  } finally {
    publishDnsMetrics();
  }
}
