import type { ValidationLevel } from '../model/certificate.ts';
import type { AuthorityOrder, DcvState, DcvType, Validations } from '../model/certificate-process.ts';
import type { ZoneRecord } from '../model/zone.ts';

/** What the service knows of a request when it asks the authority for validation state. */
export interface RequestView {
  processId: number;
  validationLevel: ValidationLevel;
  period: number;
  csrSha256: string;
  uniqueValue: string;
  /** The names the certificate will hold, the common name first (an authority that signs certifies these). */
  names: readonly string[];
  /** The organization the certificate names (OV, EV), if any. */
  organization?: string;
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

/** What a withdrawal at the authority came to. */
export interface Withdrawal {
  done: boolean;
  order?: AuthorityOrder;
  note?: string;
}

/** A request as it is opened: what the authority is shown, and whether the customer asks to validate it by auth key. */
export interface OpeningRequest extends Omit<RequestView, 'validations'> {
  /** The request asks for auth-key validation and its product allows it. */
  authKey: boolean;
  /** The names the CSR carries (its common name and DNS SANs), lower-case. */
  csrNames: string[];
}

/** What opening a request came to: its first validation state, and what an authority validating it at once issues. */
export interface Opened {
  validations: Validations;
  /** The request validated and issued within the renew request itself (the sandbox, by auth key): its validations and certificate. */
  atOnce?: { validations: Validations; issued: Issued };
}

/**
 * The certificate-authority port (contract section 6): everything the service asks of an
 * authority, as a few asynchronous methods that every adapter implements in full. Adapters: the
 * sandbox (authority-sandbox.ts: data-driven, no network) and an ACME CA (authority-acme.ts, its
 * order a step machine: acme-authority.ts); the stage chooses one (authorities.ts). Where an
 * authority does not offer what the customer asks (DCV e-mails over ACME), the method refuses with
 * a ValidationError (a 400 naming it).
 */
export interface CertificateAuthorityPort {
  /**
   * The first validation state of a request (DCV entries with their instructions, organization
   * checks), and the certificate where the authority validates and issues it at once. Planning
   * only: no call to the authority, nothing written (a quote opens one too).
   */
  open(request: OpeningRequest, dcv: DcvChoice[], zones: Map<string, ZoneRecord | undefined>): Promise<Opened>;
  /** Takes the one step now due for a request still validating (the DCV job, once per step), and answers what to record. */
  advance(request: RequestView, zones: Map<string, ZoneRecord | undefined>, now: Date, run?: string): Promise<Step>;
  /**
   * Withdraws a request that is still validating (the customer cancelled it), or says the DCV job
   * is to withdraw it at the authority afterwards (`withdrawLater`: an order an ACME CA holds), so
   * that no call to the CA waits inside the customer's request.
   */
  cancel(request: RequestView, now: Date): Promise<{ withdrawLater: boolean }>;
  /**
   * Withdraws at the authority a request the customer cancelled whose `cancel` said `withdrawLater`
   * (the DCV job): `done` once nothing is left to do (withdrawn, or given up on, with a note);
   * else the order to record (when it is tried again) and what to tell the customer.
   */
  withdraw(request: RequestView, now: Date): Promise<Withdrawal>;
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

/**
 * What a customer's request on an open certificate request asks of its authority (cancel it,
 * resend its DCV e-mails, change its DCV method): the port's methods that never issue. The
 * functions serving those requests take this part only (`authorityDesk`, authorities.ts), so
 * their bundles carry no signing (the sandbox CA's) and no order machine (ACME).
 */
export type AuthorityDesk = Pick<CertificateAuthorityPort, 'cancel' | 'resendDcvEmails' | 'changeDcv'>;
