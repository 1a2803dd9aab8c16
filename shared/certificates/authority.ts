import { ProviderUnavailable } from '../errors.ts';
import { attentionChecks, type CertificateAuthority, organizationChecks, type ValidationLevel } from '../model/certificate.ts';
import {
  type AuthorityOrder,
  allValidated,
  type CaaRecordStatus,
  type DcvState,
  type DcvType,
  type Validations,
} from '../model/certificate-process.ts';
import { servedRecords, type ZoneRecord } from '../model/zone.ts';
import { addMonths, toWireTime } from '../time.ts';
import { caaStatus } from './caa.ts';
import { absoluteRecordName, dcvInstructions, digest } from './dcv.ts';

/**
 * The certificate-authority gateway (contract section 6): everything the service asks of an
 * authority goes through this interface. Opening a request is planning only (no call to the
 * authority: the renew request records the process and answers); the work with the authority is
 * a step machine the scheduled DCV job drives, one `advance` per request and pass, whose outcome
 * the job records before the next. Two implementations: the sandbox authority here, driven by
 * the authority's record (no network, deterministic), and the ACME authority (acme-authority.ts).
 */

/** What the service knows of a request when it asks the authority for validation state. */
export interface RequestView {
  processId: number;
  validationLevel: ValidationLevel;
  period: number;
  csrSha256: string;
  uniqueValue: string;
  /** When the request was placed: the sandbox's clock for "found after N seconds". */
  requestedAt: Date;
  validations: Validations;
  /** The CSR as received (PEM): what an authority finalizes with. */
  csr: string;
  /** The order at the authority as last recorded (ACME). */
  order?: AuthorityOrder;
}

/** A DCV method chosen for one name. */
export interface DcvChoice {
  commonName: string;
  type: DcvType;
  email?: string;
}

/** A certificate as the authority issues it. */
export interface Issued {
  serialNumber: string;
  startDate: string;
  expiryDate: string;
  /** End of the subscription when the period is longer than one certificate may last. */
  subscriptionEndDate?: string;
  /** The certificate (PEM), when the authority delivers one (ACME). */
  certificate?: string;
  /** Its issuer certificates (PEM each), issuer first. */
  chain?: string[];
}

/** What one step with the authority came to: the state to record, and the certificate once issued. */
export interface Step {
  validations: Validations;
  order?: AuthorityOrder;
  issued?: Issued;
  /** What the authority said that the customer should read (a problem's detail): kept as an INCOMING note. */
  note?: string;
}

/** What the service asks of an authority while planning a request (inside the renew request: no call to the authority). */
export interface AuthorityPlanning {
  /** The first validation state of a request: DCV entries with their instructions, organization checks. Planning only. */
  open(request: Omit<RequestView, 'validations'>, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Validations;
  /** Whether every name can be validated at once by auth key (immediate issuance, within the renew request). */
  validatableAtOnce(validations: Validations): boolean;
  /** Issues the certificate of a request validated at once by auth key (only where validatableAtOnce said so). */
  issue(request: RequestView, now: Date): Issued;
  /** The validation manager took the customer's answers: ATTENTION checks are resolved. */
  resolveAttention(validations: Validations): Validations;
}

/**
 * What the customer's requests on a certificate process ask of an authority (cancel, resend):
 * authority-requests.ts gives it without the ACME client, so the functions serving those requests
 * do not carry it. Work an ACME CA must do for them (withdrawing an order) is left to the DCV job.
 */
export interface AuthorityRequests {
  /**
   * Withdraws a request that is still validating (the customer cancelled it), or says the DCV job
   * is to withdraw it at the authority afterwards (`withdrawLater`: an order an ACME CA holds).
   */
  cancel(request: RequestView, now: Date): Promise<{ withdrawLater: boolean }>;
  /** Sends the approval e-mails of these EMAIL DCV entries again; answers the record of the resend. */
  resendDcvEmails(request: RequestView, entries: readonly DcvState[], now: Date): Promise<{ date: string; commonNames: string[] }>;
  /**
   * Changes the DCV method (or approver address) of some names of a request still validating and
   * retries them: their new entries, waiting (an EMAIL entry's approval e-mail sent again), and
   * the record of the resend.
   */
  changeDcv(
    request: RequestView,
    choices: readonly DcvChoice[],
    now: Date,
  ): Promise<{ entries: DcvState[]; resend: { date: string; commonNames: string[] } }>;
}

/** Everything the service asks of an authority: the planning, the customer's requests, and the work with it (the DCV job). */
export interface CertificateAuthorityGateway extends AuthorityPlanning, AuthorityRequests {
  /** Takes the one step now due for a request still validating (the DCV job, once per pass), and answers what to record. */
  advance(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date, run?: string): Promise<Step>;
  /** Withdraws at the authority a request the customer cancelled whose `cancel` said `withdrawLater` (the DCV job). */
  withdraw(request: RequestView): Promise<void>;
}

const badCaa = new Set<CaaRecordStatus>(['INVALID', 'MALFORMED_RESPONSE', 'UNRECOGNIZED_CRITICAL_TAG']);

/** The sandbox authority for one authority record. */
export class SandboxAuthority implements CertificateAuthorityGateway {
  constructor(readonly authority: CertificateAuthority) {}

  /** The data-driven outage (`sandbox.unavailable`): the authority answers nothing. */
  private reachable(): void {
    if (this.authority.sandbox.unavailable === true) {
      throw new ProviderUnavailable(`The certificate authority ${this.authority.displayName} is unavailable; retry later.`, 30);
    }
  }

  open(request: Omit<RequestView, 'validations'>, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Validations {
    this.reachable();
    const entries: DcvState[] = dcv.map((choice) => ({
      ...dcvInstructions(this.authority, request.csrSha256, request.uniqueValue, choice.commonName, choice.type, choice.email),
      status: 'WAITING',
      caaRecordStatus: 'UNKNOWN',
      ...(this.authority.riskChecks ? { riskStatus: 'WAITING' as const } : {}),
    }));
    const validations: Validations = { dcv: entries };
    if (request.validationLevel !== 'DV') for (const check of organizationChecks) validations[check] = 'WAITING';
    for (const entry of entries) {
      const zone = zones.get(entry.commonName);
      if (entry.type === 'DNS' && zone) entry.zone = zone.domainName;
    }
    return this.check({ ...request, validations }, zones, request.requestedAt);
  }

  check(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date): Validations {
    this.reachable();
    const elapsed = (now.getTime() - request.requestedAt.getTime()) / 1000;
    const after = (seconds: number | null) => seconds !== null && elapsed >= seconds;
    const sandbox = this.authority.sandbox;
    const dcv = request.validations.dcv.map((entry): DcvState => {
      const zone = zones.get(entry.commonName);
      const caaRecordStatus = caaStatus(entry.commonName, zone, this.authority);
      let status = entry.status;
      if (badCaa.has(caaRecordStatus)) status = 'ATTENTION';
      else if (entry.type === 'DNS' && zone) status = dnsRecordStatus(entry, zone);
      else if (status !== 'VALIDATED') {
        const found =
          entry.type === 'DNS'
            ? after(sandbox.externalDnsFoundAfterSeconds)
            : entry.type === 'FILE'
              ? after(sandbox.fileFoundAfterSeconds)
              : after(sandbox.emailApprovedAfterSeconds);
        status = found ? 'VALIDATED' : 'WAITING';
      }
      const next: DcvState = { ...entry, status, caaRecordStatus };
      if (this.authority.riskChecks) next.riskStatus = status === 'VALIDATED' ? 'PASSED' : 'WAITING';
      return next;
    });
    const out: Validations = { ...request.validations, dcv };
    for (const check of organizationChecks) {
      if (out[check] !== 'WAITING') continue;
      const rule = sandbox.organizationChecks[check];
      if (elapsed >= rule.afterSeconds) out[check] = rule.result;
    }
    return out;
  }

  validatableAtOnce(validations: Validations): boolean {
    return (
      organizationChecks.every((c) => validations[c] === undefined) &&
      validations.dcv.length > 0 &&
      validations.dcv.every((e) => e.type === 'DNS' && e.zone !== undefined && !badCaa.has(e.caaRecordStatus))
    );
  }

  issue(request: RequestView, now: Date): Issued {
    this.reachable();
    const months = Math.min(request.period, this.authority.maxValidityMonths);
    return {
      serialNumber: digest(`${this.authority.name}:${request.processId}:${request.csrSha256}`).slice(0, 32).toUpperCase(),
      startDate: toWireTime(now),
      expiryDate: toWireTime(addMonths(now, months)),
      ...(request.period > months ? { subscriptionEndDate: toWireTime(addMonths(now, request.period)) } : {}),
    };
  }

  /** The sandbox's one step: look again, and issue once everything is VALIDATED. */
  async advance(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date): Promise<Step> {
    const validations = this.check(request, zones, now);
    if (!allValidated(validations)) return { validations };
    return { validations, issued: this.issue({ ...request, validations }, now) };
  }

  resolveAttention(validations: Validations): Validations {
    const out = { ...validations };
    for (const check of attentionChecks) if (out[check] === 'ATTENTION') out[check] = 'VALIDATED';
    return out;
  }

  /** The sandbox keeps no order of its own: withdrawing one only needs the authority to answer. */
  async cancel(_request: RequestView, _now: Date): Promise<{ withdrawLater: boolean }> {
    this.reachable();
    return { withdrawLater: false };
  }

  /** Nothing is left to withdraw: the sandbox withdrew the request when it was cancelled. */
  withdraw(_request: RequestView): Promise<void> {
    return Promise.resolve();
  }

  /**
   * New instructions for each chosen name (the same record, file or mailbox values a request
   * opened with that method gets), waiting again; the CAA finding and a managed zone holding the
   * DNS record are kept. The sandbox sends nothing; it answers the record of the resend.
   */
  async changeDcv(
    request: RequestView,
    choices: readonly DcvChoice[],
    now: Date,
  ): Promise<{ entries: DcvState[]; resend: { date: string; commonNames: string[] } }> {
    this.reachable();
    const entries = choices.map((choice): DcvState => {
      const before = request.validations.dcv.find((e) => e.commonName === choice.commonName);
      const zone = choice.type === 'DNS' && before?.type === 'DNS' ? before.zone : undefined;
      return {
        ...dcvInstructions(this.authority, request.csrSha256, request.uniqueValue, choice.commonName, choice.type, choice.email),
        status: 'WAITING',
        caaRecordStatus: before?.caaRecordStatus ?? 'UNKNOWN',
        ...(this.authority.riskChecks ? { riskStatus: 'WAITING' as const } : {}),
        ...(zone !== undefined ? { zone } : {}),
      };
    });
    return { entries, resend: { date: toWireTime(now), commonNames: choices.map((c) => c.commonName) } };
  }

  /** The sandbox sends nothing; it answers the record of what it would have sent, which the process keeps. */
  async resendDcvEmails(_request: RequestView, entries: readonly DcvState[], now: Date): Promise<{ date: string; commonNames: string[] }> {
    this.reachable();
    return { date: toWireTime(now), commonNames: entries.map((e) => e.commonName) };
  }
}

/** A DNS entry against the managed zone: the record with the right contents validates it. */
function dnsRecordStatus(entry: DcvState, zone: ZoneRecord): DcvState['status'] {
  const wanted = entry.dnsRecord?.toLowerCase();
  const records = servedRecords(zone).filter((r) => r.type === entry.dnsType && absoluteRecordName(r.name, zone.domainName) === wanted);
  if (records.length === 0) return entry.status === 'VALIDATED' ? 'VALIDATED' : 'WAITING';
  const norm = (s: string) => s.trim().replace(/^"|"$/g, '').replace(/\.$/, '').toLowerCase();
  return records.some((r) => norm(r.content) === norm(entry.dnsContents ?? '')) ? 'VALIDATED' : 'ATTENTION';
}
