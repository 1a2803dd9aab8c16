import type { Context, ScheduledEvent } from 'aws-lambda';
import * as v from 'valibot';
import { handler as pollHandler } from '../../functions/transfer-poll/handler.ts';
import { queryAll } from '../../shared/db/items.ts';
import { keys } from '../../shared/db/keys.ts';
import { putRegistryDomain } from '../../shared/db/repositories/registry-domains.ts';
import { ProcessRecord } from '../../shared/model/process.ts';
import type { RegistryDomainRecord } from '../../shared/model/registry-domain.ts';
import type { PollSummary } from '../../shared/transfer/poll.ts';
import { type ApiResponse, call } from './api.ts';

/** Helpers shared by the transfer tests. */

export const demoBody = { customer: 'demo', registrant: 'demo-registrant' };

/** POST /v2/domains/{name}/transfer through the local gateway. */
export function transfer(
  domainName: string,
  body: Record<string, unknown>,
  options: { quote?: boolean; key?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  return call('POST', `/v2/domains/${domainName}/transfer${options.quote ? '?quote=true' : ''}`, {
    body,
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** Adds a domain to the sandbox registry (a .com at Verisign with auth code TEST-CODE unless overridden). */
export async function sandboxDomain(domainName: string, overrides: Partial<RegistryDomainRecord> = {}): Promise<void> {
  await putRegistryDomain({
    domainName,
    registry: 'verisign',
    authcode: 'TEST-CODE',
    statuses: ['ok'],
    expiryDate: '2027-06-15T12:00:00Z',
    ns: ['ns1.old.example', 'ns2.old.example'],
    keyData: [],
    designatedAgentAllowed: true,
    transfer: { stages: [{ status: 'pending', seconds: 3600 }], outcome: 'completed' },
    ...overrides,
  });
}

/** Runs the scheduled poller as EventBridge would, at `at`. */
export function poll(at: Date): Promise<PollSummary> {
  const event = { time: at.toISOString(), 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
  return pollHandler(event, { awsRequestId: crypto.randomUUID(), functionName: 'transfer-poll' } as Context);
}

/** Every process of a customer (gsi1 Query), parsed. */
export async function processesOf(customer: string): Promise<ProcessRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.processesOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => v.parse(ProcessRecord, item));
}

/** `date` plus seconds. */
export function plus(date: string | Date, seconds: number): Date {
  return new Date(new Date(date).getTime() + seconds * 1000);
}
