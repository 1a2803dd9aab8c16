import { ProviderUnavailable } from '../errors.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import type { DcvState } from '../model/certificate-process.ts';
import { toWireTime } from '../time.ts';
import type { AuthorityDesk, DcvChoice, RequestView } from './authority.ts';
import { dcvInstructions } from './dcv.ts';

/**
 * The sandbox authority's desk (the port's `AuthorityDesk`, authority.ts): what a customer's
 * request on an open certificate request asks of it (cancel, resend the DCV e-mails, change the
 * DCV method), none of which issues. The whole sandbox authority (authority-sandbox.ts) is this
 * desk and its issuing; a function that only serves these requests (process-cancel,
 * process-resend) takes the desk alone, and its bundle carries no signing.
 */
export class SandboxDesk implements AuthorityDesk {
  constructor(readonly authority: CertificateAuthority) {}

  /** The data-driven outage (`sandbox.unavailable`): the authority answers nothing. */
  protected reachable(): void {
    if (this.authority.sandbox.unavailable === true) {
      throw new ProviderUnavailable(`The certificate authority ${this.authority.displayName} is unavailable; retry later.`, 30);
    }
  }

  /** The sandbox keeps no order of its own: withdrawing one only needs the authority to answer. */
  async cancel(_request: RequestView, _now: Date): Promise<{ withdrawLater: boolean }> {
    this.reachable();
    return { withdrawLater: false };
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
