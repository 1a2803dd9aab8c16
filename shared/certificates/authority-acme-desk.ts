import { ValidationError } from '../errors.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import type { DcvState } from '../model/certificate-process.ts';
import type { AuthorityDesk, DcvChoice, RequestView } from './authority.ts';

/**
 * An ACME CA's desk (the port's `AuthorityDesk`, authority.ts): what a customer's request on an
 * open certificate request asks of it, answered without calling the CA. The whole ACME adapter
 * (authority-acme.ts) is this desk and its work with the CA; cancel and resend take the desk alone.
 */
export class AcmeDesk implements AuthorityDesk {
  constructor(readonly authority: CertificateAuthority) {}

  /** Nothing to call now: an order the CA holds is withdrawn by the DCV job on its next pass. */
  async cancel(request: RequestView, _now: Date): Promise<{ withdrawLater: boolean }> {
    return { withdrawLater: request.order?.url !== undefined };
  }

  async resendDcvEmails(
    _request: RequestView,
    _entries: readonly DcvState[],
    _now: Date,
  ): Promise<{ date: string; commonNames: string[] }> {
    throw new ValidationError(`${this.authority.displayName} validates over ACME by DNS only: there are no DCV e-mails to send.`);
  }

  /** ACME validates every name by its dns-01 challenge: there is no other method or approver to change to. */
  async changeDcv(
    _request: RequestView,
    _choices: readonly DcvChoice[],
    _now: Date,
  ): Promise<{ entries: DcvState[]; resend: { date: string; commonNames: string[] } }> {
    throw new ValidationError(`${this.authority.displayName} validates over ACME by DNS only: the validation method cannot be changed.`);
  }
}
