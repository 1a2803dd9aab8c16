import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publishDnsMetrics } from '../../shared/dns/dns-metrics.ts';
import { dnsProvider } from '../../shared/dns/select.ts';
import { syncZonesOfBatch } from '../../shared/dns/zone-stream.ts';

/**
 * The zone sync (docs/dns.md): fed by the table's DynamoDB stream, it makes the DNS provider serve
 * every zone a batch changed. Partial batch failures: the first record of a zone whose push failed
 * for a passing reason is reported, and the stream hands it back with everything after it.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const provider = dnsProvider();
  const records = (event.Records ?? []).map((record) => ({
    keys: { pk: record.dynamodb?.Keys?.pk?.S, sk: record.dynamodb?.Keys?.sk?.S },
    sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
  }));
  try {
    const failed = await syncZonesOfBatch(provider, records);
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  } finally {
    publishDnsMetrics();
  }
}
