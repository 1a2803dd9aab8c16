import * as v from 'valibot';
import { closeOpenRequest, issueCertificate, recordValidations } from '../db/repositories/certificate-requests.ts';
import { allocateCertificateId, getCertificateAuthorities, listOpenRequests } from '../db/repositories/certificates.ts';
import { getProcessById } from '../db/repositories/processes.ts';
import { logger } from '../logger.ts';
import { type CertificateAuthority, organizationChecks } from '../model/certificate.ts';
import { CertificateProcessState, type Validations } from '../model/certificate-process.ts';
import type { ProcessRecord } from '../model/process.ts';
import { toWireTime } from '../time.ts';
import { authorityGateway, type CertificateAuthorityGateway, type RequestView } from './authority.ts';
import { issuedCertificate, requestView } from './issue.ts';
import { managedZonesFor } from './zones.ts';

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

/** A request still validating: its process and the state it keeps. */
interface OpenRequest {
  process: ProcessRecord;
  state: CertificateProcessState;
}

/** What checking one request came to: nothing new, new validations stored, lost to another run, or the id issued. */
type Outcome = 'unchanged' | 'updated' | 'raced' | number;

/** How many requests are checked at once: each check is a handful of reads and at most one transaction. */
const concurrency = 8;

/** Whether every validation of a request is VALIDATED. */
export function allValidated(validations: Validations): boolean {
  return (
    organizationChecks.every((c) => validations[c] === undefined || validations[c] === 'VALIDATED') &&
    validations.dcv.every((e) => e.status === 'VALIDATED')
  );
}

/** Checks every open certificate request once, at `at`. */
export async function checkOpenRequests(at: Date): Promise<CheckReport> {
  const report: CheckReport = { checked: 0, updated: 0, issued: [], closed: 0, failed: 0 };
  const open = await openRequests(report);
  const authorities = await getCertificateAuthorities(open.map((r) => r.state.authority));
  for (let i = 0; i < open.length; i += concurrency) {
    await Promise.all(open.slice(i, i + concurrency).map((request) => checkAndCount(request, authorities, at, report)));
  }
  return report;
}

/** The requests the open-request markers list; a marker whose process is gone or finished is removed (counted as closed). */
async function openRequests(report: CheckReport): Promise<OpenRequest[]> {
  const open: OpenRequest[] = [];
  for (const id of await listOpenRequests()) {
    const process = await getProcessById(id);
    if (process?.type !== 'certificate' || process.status !== 'RUNNING') {
      await closeOpenRequest(id);
      report.closed++;
      continue;
    }
    open.push({ process, state: v.parse(CertificateProcessState, process.details) });
  }
  return open;
}

/** Checks one request and counts the outcome; a failure is logged and counted, and the run goes on. */
async function checkAndCount(
  { process, state }: OpenRequest,
  authorities: Map<string, CertificateAuthority>,
  at: Date,
  report: CheckReport,
): Promise<void> {
  report.checked++;
  try {
    const authority = authorities.get(state.authority);
    if (!authority) throw new Error(`unknown certificate authority '${state.authority}'`);
    const outcome = await checkOne(process, state, authorityGateway(authority), at);
    if (outcome === 'updated') report.updated++;
    else if (typeof outcome === 'number') report.issued.push(outcome);
  } catch (error) {
    report.failed++;
    logger.error('dcv check failed', { processId: process.id, error: error as Error });
  }
}

/** Asks the authority to look again at one request, and stores or issues what it found. */
async function checkOne(
  process: ProcessRecord,
  state: CertificateProcessState,
  gateway: CertificateAuthorityGateway,
  at: Date,
): Promise<Outcome> {
  const zones = await managedZonesFor(
    process.customer,
    state.validations.dcv.map((e) => e.commonName),
  );
  const view = requestView(process.id, state, new Date(process.createdDate));
  const validations = gateway.check(view, zones, at);
  if (allValidated(validations)) return issue(process, state, gateway, { ...view, validations }, at);
  if (JSON.stringify(validations) === JSON.stringify(state.validations)) return 'unchanged';
  return (await recordValidations(process, validations, toWireTime(at), true)) ? 'updated' : 'raced';
}

/** Issues a fully validated request: the certificate, the process completed, a renewed certificate linked to it. */
async function issue(
  process: ProcessRecord,
  state: CertificateProcessState,
  gateway: CertificateAuthorityGateway,
  view: RequestView,
  at: Date,
): Promise<Outcome> {
  const issued = gateway.issue(view, at);
  const ids = { certificate: await allocateCertificateId(), process: process.id };
  const certificate = issuedCertificate(ids, process.customer, state, issued, toWireTime(at));
  if (!(await issueCertificate(process, view.validations, certificate, state.certificateId, toWireTime(at)))) return 'raced';
  logger.info('certificate issued', { processId: process.id, certificateId: certificate.id });
  return certificate.id;
}
