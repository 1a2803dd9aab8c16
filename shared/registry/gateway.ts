import { ObjectStatusProhibitsOperation } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { DomainContact, DsData, KeyData } from '../model/domain.ts';
import type { ProviderMetadata, TldMetadata } from '../model/provider.ts';
import type { TransferStatus } from '../model/transfer.ts';

/**
 * The gateway to the registries (contract section 6): everything the service asks a registry
 * about a transfer goes through this interface, so the use cases never know whether a real EPP
 * connection or the sandbox (shared/registry/sandbox.ts) answers.
 */

/** What a registry tells about a domain that is about to be transferred in. */
export interface TransferCandidate {
  domainName: string;
  registry: string;
  /** Current expiry at the registry; absent when the registry does not tell it (an upstream account's quote). */
  expiryDate?: string;
  /** Current name servers and DNSSEC key data at the registry. */
  ns: string[];
  keyData: KeyData[];
  /** A premium (registry-priced) name: the transfer price per 12 months in the registry's currency. */
  premium?: { currency: 'EUR' | 'USD'; amount: number };
  /** Whether the registry accepts a designated agent for this name (ICANN change-of-registrant policy). */
  designatedAgentAllowed: boolean;
  /** Whether the registrant (or a contact) must still act before the transfer can complete. */
  registrantInteraction: boolean;
  /** The registrar that sponsors the name now (the losing side), when the registry names it. */
  registrar?: string;
  /**
   * What the registry will charge for the transfer that must be acknowledged to it when the transfer
   * is submitted (an upstream account's premium or restore lines, at its prices): handed back to
   * requestTransfer as they are, never more.
   */
  registryCharges?: RegistryCharge[];
  /**
   * A transfer of the name that the same customer's earlier request (same auth code and period)
   * already started and the registry still holds (its answer was lost): requestTransfer answers it
   * instead of submitting another. Never a transfer anyone else started.
   */
  heldReference?: string;
}

/** One line the registry charges, in its currency, in cents. */
export interface RegistryCharge {
  product: string;
  action: string;
  quantity: number;
  amount: number;
  currency: string;
}

/** What the transfer asks of the registry besides the name: the contacts and the lists the plan replaces. */
export interface TransferOrder {
  registrant: string;
  contacts: { role: string; handle: string }[];
  /** Replacement name servers / DNSSEC keys (the plan's `replaced` or `removed` lists); absent: the registry's are kept. */
  ns?: string[];
  keyData?: KeyData[];
}

/** A transfer as the service refers to it at the registry. */
export interface TransferReference {
  domainName: string;
  registry: string;
  /** When the transfer was requested (wire time). */
  requestedDate: string;
  /** Months the transfer adds. */
  periodMonths: number;
  /** The registry's own id of the transfer, when it gives one (an upstream account's process id). */
  registryReference?: string;
}

/** Where a transfer stands at the registry. */
export interface RegistryTransferState {
  status: TransferStatus;
  /** When the current status expires (waiting statuses only). */
  actionDate?: string;
  /** When the transfer ended (final statuses only). */
  endDate?: string;
  /** Why it was rejected or failed, as the registry says. */
  reason?: string;
  /** After completion: the domain as the registry now holds it for us (lists it does not tell: as the plan saw them). */
  domain?: { expiryDate: string; ns?: string[]; keyData?: KeyData[] };
  /** The registry's own id of the transfer (requestTransfer of an upstream account): kept on the process. */
  registryReference?: string;
}

/**
 * A change of a domain the service holds, as the registry is asked for it: only the fields that
 * change are present. Statuses in the API's spelling (`CLIENT_TRANSFER_PROHIBITED`).
 */
export interface DomainChange {
  domainName: string;
  registry: string;
  /** The domain as the service holds it before the change (a registry that keeps no copy of it starts from this). */
  current: { ns: string[]; status: string[]; keyData: KeyData[]; expiryDate: string };
  ns?: string[];
  /** The whole status list wanted, when it changes. */
  status?: string[];
  registrant?: string;
  contacts?: DomainContact[];
  keyData?: KeyData[];
  dsData?: DsData[];
  privacyProtect?: boolean;
  /** A new auth code: `''` asks the registry to make one, any other value sets it. */
  authcode?: string;
  /** Who acts for the registrant in a registrant change (ICANN change-of-registrant policy). */
  designatedAgent?: string;
}

/** What the registry answers to a change: the auth code it now holds, when the change made or set one. */
export interface DomainChangeResult {
  authcode?: string;
}

/** Whether a name can be registered, as the registry answers a check. Prices in cents of `currency`. */
export interface DomainAvailability {
  available: boolean;
  /** Why it is not available (`registered`, `reserved`, ...). */
  reason?: string;
  premium?: boolean;
  currency?: string;
  /** A premium name's create price (available), or transfer price (registered). */
  price?: number;
  /** A premium name's renewal price, when asked. */
  renewPrice?: number;
}

export interface RegistryGateway {
  /** Whether a name is available at its registry (EPP domain check), with its premium prices. */
  checkDomain(request: { domainName: string; registry: string; languageCode?: string; renewPrice?: boolean }): Promise<DomainAvailability>;
  /**
   * Changes a domain at the registry (EPP domain update). Throws ObjectStatusProhibitsOperation
   * when the registry's statuses forbid the change. Safe to repeat: every field sets a state.
   */
  updateDomain(change: DomainChange): Promise<DomainChangeResult>;
  /**
   * Looks a domain up for a transfer-in. Throws ObjectDoesNotExist (400) for a name the registry
   * does not know, ObjectStatusProhibitsOperation for a name it will not transfer (locks), and
   * ValidationError on `authcode` for a wrong auth code. A transfer of the name that this registrar
   * already requested and the registry still holds is no lock: the service may not have recorded it.
   */
  prepareTransfer(request: {
    domainName: string;
    registry: string;
    authcode?: string;
    /** The period and contacts of the transfer, for a registry that quotes them (an upstream account). */
    periodMonths?: number;
    order?: TransferOrder;
    /** The customer asking (an upstream account adopts a transfer it holds only for that customer's own earlier request). */
    customer?: string;
  }): Promise<TransferCandidate>;
  /**
   * Submits a transfer (after prepareTransfer succeeded); answers the registry's first status. It
   * must be safe to repeat: when the registry already holds a transfer of the name requested by this
   * registrar (the service failed to record it after the registry took it), the answer is that
   * transfer's current status (EPP: transfer query) and no second transfer is requested. The service
   * writes nothing before the registry has answered, so a retry of a failed request relies on this.
   * The sandbox keeps no state per request, so any repetition answers alike.
   */
  requestTransfer(
    reference: TransferReference & { authcode?: string; order?: TransferOrder; candidate?: TransferCandidate; customer?: string },
  ): Promise<RegistryTransferState>;
  /** Where a submitted transfer stands at `at`. */
  transferState(reference: TransferReference, at: Date): Promise<RegistryTransferState>;
  /**
   * Cancels a submitted transfer at `at` (EPP transfer op="cancel") and answers its state then:
   * `cancelled`, or the final status it had already reached, which the cancellation cannot undo.
   * Safe to repeat: a transfer already cancelled answers its first cancellation.
   */
  cancelTransfer(reference: TransferReference, at: Date): Promise<RegistryTransferState>;
  /**
   * Sends the FOA e-mail of a transfer again. Throws ObjectStatusProhibitsOperation when the
   * transfer no longer waits for it at `at` (approved, ended or cancelled meanwhile).
   */
  resendFoa(reference: TransferReference, at: Date): Promise<void>;
  /**
   * A registry's rules and TLD metadata as the counterpart holds them, for a gateway whose
   * registries' rules live there (an upstream account): the scheduled job `registry-metadata`
   * caches them in the table (shared/registry/refresh-metadata.ts). The sandbox has none: its
   * registries' rules are the dataset's.
   */
  registryMetadata?(name: string): Promise<{ metadata: ProviderMetadata; tldMetadata?: TldMetadata }>;
  /** The registries whose metadata registryMetadata tells (the ones the service serves through it). */
  metadataRegistries?: readonly string[];
  /**
   * For a gateway that records its intent before submitting (an upstream account, which takes no
   * idempotency key): settles the intents of requests that died without an answer, as the poller
   * runs at `at` (shared/registry/rtr.ts says how).
   */
  reconcile?(at: Date): Promise<IntentSummary>;
  /**
   * For a gateway whose counterpart keeps contacts of its own (an upstream account): makes the
   * counterpart hold `contact` as it is, under `handle` (created when `known` is false or the
   * counterpart lost it; else updated, its registry properties included), so that a transfer,
   * registration or domain update can name it there. Safe to repeat. Throws ValidationError when
   * the counterpart refuses the contact. The sandbox's registries keep no contacts: it has none.
   */
  mirrorContact?(contact: ContactRecord, handle: string, known: boolean): Promise<void>;
  /**
   * For a gateway that mirrors contacts: deletes the contact the counterpart holds under `handle`
   * (one it no longer holds is no error). Throws ObjectStatusProhibitsOperation while the
   * counterpart still uses it (a domain there names it).
   */
  forgetContact?(handle: string): Promise<void>;
  /**
   * Looks a free name up for a registration (EPP domain check with its fees): its premium create
   * price and what the registry will charge that must be acknowledged to it. Throws ObjectExists
   * for a name someone holds and ValidationError on `domainName` for a name the registry refuses
   * (reserved). A registration of the name that the same customer's earlier request made (same
   * period) and whose answer was lost is no refusal: the candidate says so (`held`). The use case
   * records each request's intent before registerDomain (repositories/registration-intents.ts);
   * a registry that keeps no record of who asked (an upstream account) tells that request by it.
   */
  prepareRegistration(request: RegistrationRequest): Promise<RegistrationCandidate>;
  /**
   * Registers a name (after prepareRegistration succeeded); answers the registry's first state:
   * completed with the expiry, or pending until `actionDate`. Safe to repeat: a registration the
   * same customer's earlier request made answers that registration's state, never a second one.
   */
  registerDomain(
    reference: RegistrationReference & { customer: string; order: RegistrationOrder; candidate: RegistrationCandidate },
  ): Promise<RegistrationState>;
  /** Where a pending registration stands at `at`. */
  registrationState(reference: RegistrationReference & { customer: string }, at: Date): Promise<RegistrationState>;
  /**
   * Renews a domain the service holds (EPP domain renew) for `periodMonths` from
   * `currentExpiryDate`, the expiry the service holds (EPP's curExpDate): answers the new expiry.
   * Safe to repeat: when the registry's expiry is already `currentExpiryDate` plus the period (an
   * earlier request of ours was renewed but its answer lost), that expiry is answered and nothing is
   * renewed again. Throws ObjectStatusProhibitsOperation when its statuses forbid it or its expiry
   * is neither, ValidationError when the registry refuses the period.
   */
  renewDomain(
    request: DomainLifecycleRequest & {
      periodMonths: number;
      /**
       * A premium domain's renewal price per 12 months that the customer's quote charged (the
       * registry's currency, cents): a registry that quotes more for the renewal (an upstream
       * account) is refused before it renews. Absent: the renewal is charged at the plain price,
       * and a premium line upstream is refused likewise.
       */
      premium?: { currency: string; amount: number };
    },
  ): Promise<{ expiryDate: string }>;
  /**
   * A premium domain's renewal price per 12 months, for a registry whose check does not tell it for
   * a name the account holds (an upstream account answers such a check `registered`): read from
   * the registry's own quote of the renewal, the line beyond the account's plain price. Undefined
   * when the renewal has none (renewed at the plain price). Without this method, a check with
   * `renewPrice` tells it (the sandbox).
   */
  premiumRenewal?(request: {
    domainName: string;
    registry: string;
    periodMonths: number;
  }): Promise<{ currency: string; amount: number } | undefined>;
  /**
   * A registry's own restore fee for a domain in its redemption period, for a registry that charges
   * the account more than its plain RESTORE price (an upstream account whose registry adds a
   * restore fee): the RESTORE line of the registry's quote of the restore beyond the account's plain
   * price there, in the quote's currency, cents. For a domain the registry already restored since
   * `redemptionSince` (an earlier request of ours whose answer was lost: restoreDomain answers that
   * restore), the fee that restore was charged. Undefined when the restore costs the plain price.
   * Without this method, restores cost the plain price (the sandbox).
   */
  restoreFee?(request: {
    domainName: string;
    registry: string;
    reason: string;
    /** When the domain entered its redemption period here (wire time). */
    redemptionSince: string;
  }): Promise<{ currency: string; amount: number } | undefined>;
  /**
   * Deletes a domain (EPP domain delete): it enters the registry's redemption period, restorable
   * until `redemptionUntil`. Safe to repeat: a domain already in redemption answers its period.
   * Throws ObjectStatusProhibitsOperation when its statuses forbid it.
   */
  deleteDomain(request: DomainLifecycleRequest & { at: Date }): Promise<{ redemptionUntil: string }>;
  /**
   * Restores a domain in its redemption period (RGP restore): answers its expiry after it. Safe to
   * repeat: a domain already restored answers its expiry. Throws ObjectDoesNotExist when the
   * redemption period is over (the name is gone), ObjectStatusProhibitsOperation when it is not in
   * redemption. `charged`: what the customer's quote charges for the restore (cents per unit, in
   * its currency); a registry whose own restore charge is above it refuses before restoring.
   */
  restoreDomain(
    request: DomainLifecycleRequest & { reason: string; at: Date; charged?: { currency: string; amount: number } },
  ): Promise<{ expiryDate: string }>;
}

/** What a registration asks of the registry besides the name and period. */
export interface RegistrationOrder {
  registrant: string;
  contacts: DomainContact[];
  ns?: string[];
  keyData?: KeyData[];
  privacyProtect?: boolean;
  languageCode?: string;
  launchPhase?: string;
  /** A custom auth code (registries that take one); never logged. */
  authcode?: string;
}

/** A registration as it is asked for: the name, its registry, the period and who asks. */
export interface RegistrationRequest {
  domainName: string;
  registry: string;
  periodMonths: number;
  customer: string;
  order: RegistrationOrder;
}

/** What the registry tells about a name that is about to be registered. */
export interface RegistrationCandidate {
  domainName: string;
  registry: string;
  /** A premium name: its create price per 12 months in the registry's currency. */
  premium?: { currency: 'EUR' | 'USD'; amount: number };
  /** What the registry charges beyond the account's plain prices (an upstream account's premium line), handed back as they are. */
  registryCharges?: RegistryCharge[];
  /** The registry already holds this customer's registration of the name from an earlier request (its answer was lost). */
  held?: boolean;
  /**
   * With `held`: that earlier registration is still pending at the registry, under this reference
   * of the registry's (an upstream account's process id). registerDomain answers it pending and
   * submits nothing again.
   */
  pendingReference?: string;
}

/** A registration as the service refers to it at the registry. */
export interface RegistrationReference {
  domainName: string;
  registry: string;
  /** When it was requested (wire time). */
  requestedDate: string;
  periodMonths: number;
  /** The registry's own id of the registration, when it gives one (an upstream account's process id). */
  registryReference?: string;
}

/** Where a registration stands at the registry. */
export interface RegistrationState {
  status: 'pending' | 'completed' | 'failed';
  /** While pending: when to ask again. */
  actionDate?: string;
  /** Once completed: the domain's expiry at the registry. */
  expiryDate?: string;
  /** Why it failed, as the registry says. */
  reason?: string;
  registryReference?: string;
  /** Once completed: the auth code the registry holds for the new domain (never logged). */
  authcode?: string;
}

/** A renewal, deletion or restore of a domain the service holds, as the registry is asked for it. */
export interface DomainLifecycleRequest {
  domainName: string;
  registry: string;
  /** The expiry the service holds before the change (EPP's curExpDate; the guard of a renewal). */
  currentExpiryDate: string;
  /** The domain as the service holds it (a registry that keeps no copy of it starts from this). */
  current: { ns: string[]; status: string[]; keyData: KeyData[] };
  /** The registry's days of redemption for a deletion (its TLD metadata), when known. */
  redemptionDays?: number;
}

/** What settling the intents did: how many were looked at, found recorded, cancelled upstream, or completed upstream unrecorded. */
export interface IntentSummary {
  intents: number;
  recorded: number;
  cancelled: number;
  unrecorded: number;
}

/**
 * The one refusal for a name whose state forbids a transfer-in: a registry lock, a name held by
 * another account of the service, or another account's transfer in progress. One wording for all,
 * so the answer never tells another account's name from a locked one (contract section 1).
 */
export function transferProhibited(domainName: string): ObjectStatusProhibitsOperation {
  return new ObjectStatusProhibitsOperation(`The registry refuses to transfer ${domainName}: its status prohibits it.`);
}
