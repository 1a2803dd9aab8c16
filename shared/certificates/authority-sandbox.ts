import { attentionChecks, organizationChecks } from '../model/certificate.ts';
import { allValidated, type CaaRecordStatus, type DcvState, type Validations } from '../model/certificate-process.ts';
import { servedRecords, type ZoneRecord } from '../model/zone.ts';
import { addMonths, toWireTime } from '../time.ts';
import type { CertificateAuthorityPort, DcvChoice, Issued, Opened, OpeningRequest, RequestView, Step, Withdrawal } from './authority.ts';
import { SandboxDesk } from './authority-sandbox-desk.ts';
import { caaStatus } from './caa.ts';
import { absoluteRecordName, dcvInstructions, digest } from './dcv.ts';
import { type SandboxCertificateRequest, type SandboxSigned, signSandboxCertificate } from './sandbox-ca.ts';

/**
 * The sandbox authority (the certificate-authority port, authority.ts), driven by the authority's
 * record (no network, deterministic): DCV found after the record's delays, organization checks
 * answered as the record scripts them (ATTENTION until the customer answers the validation
 * manager: validation-manager.ts), e-mail approvers, auth-key validation at once, and an outage
 * on demand (`sandbox.unavailable`). Its desk (cancel, resend, change DCV: no issuance) is
 * authority-sandbox-desk.ts, which the functions serving only those requests take alone.
 */

const badCaa = new Set<CaaRecordStatus>(['INVALID', 'MALFORMED_RESPONSE', 'UNRECOGNIZED_CRITICAL_TAG']);

/** The sandbox authority for one authority record. */
export class SandboxAuthority extends SandboxDesk implements CertificateAuthorityPort {
  /**
   * The DCV entries with their instructions and the organization checks of an OV/EV request, as
   * the sandbox finds them at once; an auth-key request whose every name is a DNS entry in a
   * managed zone with no bad CAA finding is validated and issued at once.
   */
  async open(request: OpeningRequest, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Promise<Opened> {
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
    const opened = this.check({ ...request, validations }, zones, request.requestedAt);
    if (!request.authKey || !validatableAtOnce(opened)) return { validations: opened };
    const atOnce = validatedAtOnce(opened);
    return {
      validations: opened,
      atOnce: { validations: atOnce, issued: await this.issue({ ...request, validations: atOnce }, request.requestedAt) },
    };
  }

  private check(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date): Validations {
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

  /**
   * The certificate of a validated request: a serial derived from the request, valid from `now` for
   * the period (at most the authority's maximum), signed by the sandbox CA for the request's names
   * and its CSR's key (sandbox-ca.ts), with the CA's certificate as its chain.
   */
  private async issue(request: RequestView, now: Date): Promise<Issued> {
    this.reachable();
    const months = Math.min(request.period, this.authority.maxValidityMonths);
    const serialNumber = digest(`${this.authority.name}:${request.csrSha256}:${request.uniqueValue}:${request.requestedAt.getTime()}`)
      .slice(0, 32)
      .toUpperCase();
    const startDate = toWireTime(now);
    const expiryDate = toWireTime(addMonths(now, months));
    const [commonName = '', ...others] = request.names;
    const signed = await sign({
      serialNumber,
      commonName,
      names: [commonName, ...others],
      ...(request.organization ? { organization: request.organization } : {}),
      startDate,
      expiryDate,
      csr: request.csr,
    });
    return {
      serialNumber,
      startDate,
      expiryDate,
      ...(request.period > months ? { subscriptionEndDate: toWireTime(addMonths(now, request.period)) } : {}),
      certificate: signed.certificate,
      chain: signed.chain,
    };
  }

  /** The sandbox's one step: look again, and issue once everything is VALIDATED. */
  async advance(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date): Promise<Step> {
    const validations = this.check(request, zones, now);
    if (!allValidated(validations)) return { validations };
    return { validations, issued: await this.issue({ ...request, validations }, now) };
  }

  /** Nothing is left to withdraw: the sandbox withdrew the request when it was cancelled. */
  async withdraw(_request: RequestView, _now: Date): Promise<Withdrawal> {
    return { done: true };
  }
}

/**
 * The sandbox CA's signing (sandbox-ca.ts); left out of the bundles of a stage that runs another
 * authority (`SANDBOX_CA_BUNDLED`, infra/bundling.ts: the condition is then a constant, and the
 * branch that signs, with its import, is dropped).
 */
function sign(request: SandboxCertificateRequest): Promise<SandboxSigned> {
  return process.env.SANDBOX_CA_BUNDLED === 'false'
    ? Promise.reject(new Error('The sandbox CA is not bundled: this stage does not run the sandbox authority'))
    : signSandboxCertificate(request);
}

/** A DNS entry against the managed zone: the record with the right contents validates it. */
function dnsRecordStatus(entry: DcvState, zone: ZoneRecord): DcvState['status'] {
  const wanted = entry.dnsRecord?.toLowerCase();
  const records = servedRecords(zone).filter((r) => r.type === entry.dnsType && absoluteRecordName(r.name, zone.domainName) === wanted);
  if (records.length === 0) return entry.status === 'VALIDATED' ? 'VALIDATED' : 'WAITING';
  const norm = (s: string) => s.trim().replace(/^"|"$/g, '').replace(/\.$/, '').toLowerCase();
  return records.some((r) => norm(r.content) === norm(entry.dnsContents ?? '')) ? 'VALIDATED' : 'ATTENTION';
}

/** Whether every name can be validated at once by auth key: DNS entries in managed zones, no bad CAA finding, no organization check. */
function validatableAtOnce(validations: Validations): boolean {
  return (
    organizationChecks.every((c) => validations[c] === undefined) &&
    validations.dcv.length > 0 &&
    validations.dcv.every((e) => e.type === 'DNS' && e.zone !== undefined && !badCaa.has(e.caaRecordStatus))
  );
}

/** Validations as auth-key validation leaves them: every DCV entry VALIDATED, its risk check (if any) PASSED. */
function validatedAtOnce(validations: Validations): Validations {
  return {
    ...validations,
    dcv: validations.dcv.map((e) => ({
      ...e,
      status: 'VALIDATED' as const,
      ...(e.riskStatus ? { riskStatus: 'PASSED' as const } : {}),
    })),
  };
}

/**
 * The sandbox's validation manager (the page behind a one-time link): the customer answered the
 * authority's questions, and the checks that needed their attention (organization, voice,
 * agreement) are VALIDATED.
 */
export function answeredValidationManager(validations: Validations): Validations {
  const out = { ...validations };
  for (const check of attentionChecks) if (out[check] === 'ATTENTION') out[check] = 'VALIDATED';
  return out;
}
