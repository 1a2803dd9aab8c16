import { ValidationError } from '../errors.ts';
import { integrationSettings } from '../integrations.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import type { DcvState } from '../model/certificate-process.ts';
import type { ZoneRecord } from '../model/zone.ts';
import type { AcmeOrders } from './acme-authority.ts';
import type { CertificateAuthorityPort, DcvChoice, Opened, OpeningRequest, RequestView, Step, Withdrawal } from './authority.ts';
import { AcmeDesk } from './authority-acme-desk.ts';
import { caaStatus } from './caa.ts';
import { dcvBase } from './dcv.ts';

/**
 * An ACME CA (RFC 8555) behind the certificate-authority port (authority.ts). Opening, cancelling
 * and the customer's DCV requests are answered without calling the CA; the work with it (the
 * order's steps, a withdrawal) is acme-authority.ts, on the ACME client, which is loaded only by
 * `advance` and `withdraw` (the DCV job), and bundled only where the stage runs ACME and the
 * function works with the CA (infra/bundling.ts): renew, cancel and resend carry no client. Its desk
 * (cancel, resend, change DCV) is authority-acme-desk.ts, which cancel and resend take alone.
 */
export class AcmeAuthority extends AcmeDesk implements CertificateAuthorityPort {
  private orders: Promise<AcmeOrders> | undefined;

  /**
   * dns-01 for every name: the record `_acme-challenge.<name>` (TXT), its value known once the
   * order exists. EMAIL and FILE are not offered over ACME here (http-01 would need the
   * customer's web server): asked for, the request is refused. OV/EV organization checks are the
   * CA's, done on the account before it issues (Sectigo's OV directory): none are tracked here.
   * Nothing is issued within the renew request: the DCV job takes the order's steps.
   */
  async open(request: OpeningRequest, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Promise<Opened> {
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
    // The CA issues the names of the CSR it finalizes with, and refuses a CSR that lacks one of the
    // order's (badCSR): a name the request certifies (the free www/non-www one too) must be in the CSR.
    const missing = dcv.filter((choice) => !request.csrNames.includes(choice.commonName.toLowerCase())).map((c) => c.commonName);
    if (missing.length > 0)
      refused.push({
        field: 'csr',
        message: `${this.authority.displayName} issues over ACME exactly the names of the CSR, which lacks ${missing.join(', ')}: add ${missing.length > 1 ? 'them' : 'it'} to the CSR, or leave ${missing.length > 1 ? 'them' : 'it'} out of the request (\`san\`)`,
      });
    if (refused.length > 0) throw new ValidationError(refused[0]?.message ?? 'DNS only', refused);
    return {
      validations: {
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
      },
    };
  }

  /** The step of the request's order now due (acme-authority.ts). */
  async advance(request: RequestView, _zones: Map<string, ZoneRecord | undefined>, now: Date, run = ''): Promise<Step> {
    return (await this.work()).advance(request, now, run);
  }

  /** Deactivates the order's authorizations at the CA and removes its challenge records (acme-authority.ts). */
  async withdraw(request: RequestView, now: Date): Promise<Withdrawal> {
    if (!request.order?.url) return { done: true };
    return (await this.work()).withdraw(request, now);
  }

  /** The order's step machine, with the ACME client (about 1 MB with its HTTP stack), loaded once. */
  private work(): Promise<AcmeOrders> {
    this.orders ??= loadOrders(this.authority);
    return this.orders;
  }
}

/**
 * The order's step machine (acme-authority.ts) of an authority, with the DNS integration its
 * dns-01 records go through (loaded only when a record is published, so that a function running
 * the sandbox authority needs no DNS settings).
 */
function loadOrders(authority: CertificateAuthority): Promise<AcmeOrders> {
  // Replaced by a constant when the function is bundled for a stage whose authority is not ACME,
  // or for a function that only names the authority (infra/bundling.ts): the branch that loads
  // the client is then left out of the bundle.
  return process.env.ACME_CLIENT_BUNDLED === 'false'
    ? noAcmeClient()
    : import('./acme-authority.ts').then(
        ({ AcmeOrders }) => new AcmeOrders(authority.name, async () => (await import('../dns/select.ts')).dnsProvider()),
      );
}

/** The refusal of a bundle made without the ACME client, should it be asked to work with the CA after all. */
function noAcmeClient(): never {
  throw new Error(
    `${integrationSettings.authority} is 'acme', but this function was bundled without the ACME client (for a stage whose authority is not ACME, or as a function that never works with the CA)`,
  );
}
