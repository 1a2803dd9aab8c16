import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '../metrics.ts';

/** The zone sync's and the reconcile job's metrics (the stack's alarms read the same names). */
export const dnsMetricNames = {
  /** A push the DNS provider refused: the zone is not served as the table has it (alarmed). */
  pushRefused: 'DnsPushRefused',
  /** A push that failed for a passing reason (the provider unreachable); retried. */
  pushFailed: 'DnsPushFailed',
  /** Zones the reconcile job compared with the provider. */
  zonesReconciled: 'DnsZonesReconciled',
  /** Zones the reconcile job found drifted and repaired. */
  zonesRepaired: 'DnsZonesRepaired',
  /** Record sets the reconcile job changed while repairing. */
  recordSetsRepaired: 'DnsRecordSetsRepaired',
} as const;

let stored = false;

export function countDnsMetric(name: (typeof dnsMetricNames)[keyof typeof dnsMetricNames], value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
  stored = true;
}

/** Publishes what was counted since the last call (nothing, and no warning, when nothing was). */
export function publishDnsMetrics(): void {
  if (!stored) return;
  stored = false;
  metrics.publishStoredMetrics();
}
