import type { Context, ScheduledEvent } from 'aws-lambda';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { type MetadataRefresh, refreshRegistryMetadata } from '../../shared/registry/refresh-metadata.ts';

/**
 * The scheduled registry metadata refresh: copies the registries' rules from the upstream account
 * into the table (nothing to do with the sandbox registry, whose rules are the dataset's).
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<MetadataRefresh | { skipped: true }> {
  const summary = await refreshRegistryMetadata();
  await jobRan('registry-metadata', summary ?? {});
  if (!summary) return { skipped: true };
  logger.info('registry metadata refresh', { job: 'registry-metadata', requestId: context?.awsRequestId, ...summary });
  return summary;
}
