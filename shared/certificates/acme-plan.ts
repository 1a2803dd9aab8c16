import { ValidationError } from '../errors.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import type { DcvState, Validations } from '../model/certificate-process.ts';
import type { ZoneRecord } from '../model/zone.ts';
import type { AuthorityPlanning, AuthorityRequests, DcvChoice, Issued, RequestView } from './authority.ts';
import { caaStatus } from './caa.ts';
import { dcvBase } from './dcv.ts';

/**
 * The ACME authority's planning (acme-authority.ts does the work with the CA): what the renew
 * request needs, without the ACME client, so that the renew function does not carry it.
 */
export class AcmePlanning implements AuthorityPlanning {
  constructor(readonly authority: CertificateAuthority) {}

  /**
   * dns-01 for every name: the record `_acme-challenge.<name>` (TXT), its value known once the
   * order exists. EMAIL and FILE are not offered over ACME here (http-01 would need the
   * customer's web server): asked for, the request is refused. OV/EV organization checks are the
   * CA's, done on the account before it issues (Sectigo's OV directory): none are tracked here.
   */
  open(request: Omit<RequestView, 'validations'>, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Validations {
    const refused = dcv.flatMap((choice, i) =>
      choice.type === 'DNS'
        ? []
        : [
            {
              field: `dcv[${i}].type`,
              message: `${this.authority.displayName} validates over ACME by DNS (dns-01) only, not ${choice.type}`,
            },
          ],
    );
    if (refused.length > 0) throw new ValidationError(refused[0]?.message ?? 'DNS only', refused);
    void request;
    return {
      dcv: dcv.map((choice): DcvState => {
        const zone = zones.get(choice.commonName);
        return {
          commonName: choice.commonName,
          type: 'DNS',
          status: 'WAITING',
          caaRecordStatus: caaStatus(choice.commonName, zone, this.authority),
          dnsRecord: `_acme-challenge.${dcvBase(choice.commonName)}`,
          dnsType: 'TXT',
          ...(zone ? { zone: zone.domainName } : {}),
        };
      }),
    };
  }

  /** Over ACME nothing is issued inside a request: the DCV job takes the order's steps. */
  validatableAtOnce(_validations: Validations): boolean {
    return false;
  }

  issue(_request: RequestView, _now: Date): Issued {
    throw new Error('An ACME authority issues through the DCV job, never at once');
  }

  resolveAttention(validations: Validations): Validations {
    return validations;
  }
}

/**
 * The customer's requests on an ACME request, answered without calling the CA (and without the
 * ACME client, so cancel and resend do not bundle it): a cancellation leaves the withdrawal of the
 * order to the DCV job (acme-authority.ts `withdraw`), which has the client; there are no DCV
 * e-mails to resend and no other method to change to.
 */
export class AcmeRequests implements AuthorityRequests {
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
