import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { authorityGateway, type RequestView } from '../../shared/certificates/authority.ts';
import { managedZonesFor } from '../../shared/certificates/zones.ts';
import { db } from '../../shared/db/client.ts';
import { getItem } from '../../shared/db/items.ts';
import { keys } from '../../shared/db/keys.ts';
import { certificateItem, getCertificateAuthorities, listOpenRequests } from '../../shared/db/repositories/certificates.ts';
import { nextId } from '../../shared/db/repositories/counters.ts';
import { tableName } from '../../shared/db/table.ts';
import { logger } from '../../shared/logger.ts';
import {
  type CertificateAuthority,
  CertificateProcessState,
  type CertificateRecord,
  organizationChecks,
  type Validations,
} from '../../shared/model/certificate.ts';
import { ProcessRecord } from '../../shared/model/process.ts';
import { toWireTime } from '../../shared/time.ts';

/**
 * The scheduled DCV check: for every certificate request still validating, asks the authority to
 * look again (DNS records in managed zones, e-mails, files, organization checks), stores what
 * changed, and issues the certificate once everything is VALIDATED. Each process is updated under
 * a condition on its last update, so overlapping runs never issue twice.
 */

export interface CheckReport {
  checked: number;
  updated: number;
  issued: number[];
  closed: number;
  failed: number;
}

/** Whether every validation of a request is VALIDATED. */
export function allValidated(validations: Validations): boolean {
  return (
    organizationChecks.every((c) => validations[c] === undefined || validations[c] === 'VALIDATED') &&
    validations.dcv.every((e) => e.status === 'VALIDATED')
  );
}

function viewOf(process: ProcessRecord, state: CertificateProcessState): RequestView {
  return {
    processId: process.id,
    validationLevel: state.validationLevel,
    period: state.period,
    csrSha256: state.csrSummary.sha256,
    uniqueValue: state.uniqueValue,
    requestedAt: new Date(process.createdDate),
    validations: state.validations,
  };
}

/** Checks every open certificate request once, at `at`. */
export async function checkOpenRequests(at: Date): Promise<CheckReport> {
  const report: CheckReport = { checked: 0, updated: 0, issued: [], closed: 0, failed: 0 };
  const ids = await listOpenRequests();
  const processes: { process: ProcessRecord; state: CertificateProcessState }[] = [];
  for (const id of ids) {
    const process = await getItem(keys.processById(id), ProcessRecord, 'process');
    if (process?.type !== 'certificate' || process.status !== 'RUNNING') {
      // A marker whose process is gone or finished: nothing left to check.
      await db().send(
        new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: tableName(), Key: keys.openCertificateRequest(id) } }] }),
      );
      report.closed++;
      continue;
    }
    processes.push({ process, state: v.parse(CertificateProcessState, process.details) });
  }
  const authorities = await getCertificateAuthorities(processes.map((p) => p.state.authority));
  // A few at a time: each check is a handful of reads and at most one transaction.
  for (let i = 0; i < processes.length; i += 8) {
    await Promise.all(processes.slice(i, i + 8).map((p) => checkAndCount(p.process, p.state)));
  }
  return report;

  async function checkAndCount(process: ProcessRecord, state: CertificateProcessState): Promise<void> {
    report.checked++;
    try {
      const authority = authorities.get(state.authority);
      if (!authority) throw new Error(`unknown certificate authority '${state.authority}'`);
      const outcome = await checkOne(process, state, authority, at);
      if (outcome === 'updated') report.updated++;
      else if (typeof outcome === 'number') report.issued.push(outcome);
    } catch (error) {
      report.failed++;
      logger.error('dcv check failed', { processId: process.id, error: error as Error });
    }
  }
}

async function checkOne(
  process: ProcessRecord,
  state: CertificateProcessState,
  authority: CertificateAuthority,
  at: Date,
): Promise<'unchanged' | 'updated' | 'raced' | number> {
  const gateway = authorityGateway(authority);
  const zones = await managedZonesFor(
    process.customer,
    state.validations.dcv.map((e) => e.commonName),
  );
  const view = viewOf(process, state);
  const validations = gateway.check(view, zones, at);
  const stamp = toWireTime(at);
  const table = tableName();
  const guard = {
    ConditionExpression: 'updatedDate = :was AND #status = :running',
    ExpressionAttributeNames: { '#status': 'status' },
  };

  if (!allValidated(validations)) {
    if (JSON.stringify(validations) === JSON.stringify(state.validations)) return 'unchanged';
    try {
      await db().send(
        new UpdateCommand({
          TableName: table,
          Key: keys.processById(process.id),
          UpdateExpression: 'SET details.validations = :validations, updatedDate = :now',
          ...guard,
          ExpressionAttributeValues: { ':validations': validations, ':now': stamp, ':was': process.updatedDate, ':running': 'RUNNING' },
        }),
      );
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return 'raced';
      throw error;
    }
    return 'updated';
  }

  const issued = gateway.issue({ ...view, validations }, at);
  const certificate: CertificateRecord = {
    id: await nextId('certificate'),
    customer: process.customer,
    product: state.product,
    commonName: state.commonName,
    san: [state.commonName, ...state.san],
    status: 'ACTIVE',
    serialNumber: issued.serialNumber,
    startDate: issued.startDate,
    expiryDate: issued.expiryDate,
    ...(issued.subscriptionEndDate ? { subscriptionEndDate: issued.subscriptionEndDate } : {}),
    ...(state.subject.organization ? { organization: state.subject.organization } : {}),
    keyType: `${state.csrSummary.keyType}-${state.csrSummary.curve ?? state.csrSummary.keySize}`,
    processId: process.id,
    createdDate: stamp,
    updatedDate: stamp,
  };
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Update: {
        TableName: table,
        Key: keys.processById(process.id),
        UpdateExpression:
          'SET details.validations = :validations, details.issuedCertificateId = :id, #status = :completed, updatedDate = :now',
        ...guard,
        ExpressionAttributeValues: {
          ':validations': validations,
          ':id': certificate.id,
          ':completed': 'COMPLETED',
          ':now': stamp,
          ':was': process.updatedDate,
          ':running': 'RUNNING',
        },
      },
    },
    { Put: { TableName: table, Item: certificateItem(certificate), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Delete: { TableName: table, Key: keys.openCertificateRequest(process.id), ConditionExpression: 'attribute_exists(pk)' } },
  ];
  if (state.certificateId !== undefined) {
    items.push({
      Update: {
        TableName: table,
        Key: keys.certificateById(state.certificateId),
        UpdateExpression: 'REMOVE renewalProcessId SET renewedBy = :id, updatedDate = :now',
        ConditionExpression: 'renewalProcessId = :pid',
        ExpressionAttributeValues: { ':id': certificate.id, ':now': stamp, ':pid': process.id },
      },
    });
  }
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if ((error as Error).name === 'TransactionCanceledException' && reasons?.some((r) => r.Code === 'ConditionalCheckFailed'))
      return 'raced';
    throw error;
  }
  logger.info('certificate issued', { processId: process.id, certificateId: certificate.id });
  return certificate.id;
}
