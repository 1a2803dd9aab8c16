import * as v from 'valibot';
import { DomainName, WireTime } from '../schemas/primitives.ts';
import { KeyData } from './domain.ts';
import { type FinalStatus, finalStatuses, isValidPath, WaitingStatus } from './transfer.ts';

/**
 * A domain as the sandbox registry knows it (contract section 6): which registry runs it, its auth
 * code, locks, premium price, expiry, name servers and DNSSEC, and the script its transfer follows.
 */

/** One waiting stage of a transfer script: its status and how long it lasts. */
export const TransferStage = v.object({
  status: WaitingStatus,
  seconds: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/** How a transfer script may end: any final status but `cancelled`, which is the customer's own act, never the registry's. */
const ScriptOutcome = v.picklist(finalStatuses.filter((s): s is Exclude<FinalStatus, 'cancelled'> => s !== 'cancelled'));

/** EPP statuses that make a registry refuse a transfer (RFC 5731 and the ICANN transfer policy). */
export const transferBlockingStatuses = [
  'clientTransferProhibited',
  'serverTransferProhibited',
  'pendingTransfer',
  'pendingDelete',
  'redemptionPeriod',
  // The 60-day lock after a registrant change (ICANN change-of-registrant policy).
  'irtpcTransferProhibited',
] as const;

/** A status in EPP's spelling (`clientTransferProhibited`) from the API's (`CLIENT_TRANSFER_PROHIBITED`). */
export function eppStatus(status: string): string {
  if (!/^[A-Z0-9_]+$/.test(status)) return status;
  return status.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A domain as the sandbox registry holds it. */
export const RegistryDomainRecord = v.object({
  domainName: DomainName,
  /** Provider name of the registry (must serve the extension). */
  registry: v.string(),
  /** The current auth code; absent at registries without auth codes (Nominet). */
  authcode: v.optional(v.string()),
  /** EPP statuses (`ok`, `clientTransferProhibited`, ...). */
  statuses: v.array(v.string()),
  expiryDate: WireTime,
  ns: v.array(v.string()),
  keyData: v.array(KeyData),
  /** Premium name: the registry's transfer price per 12 months. */
  premium: v.optional(v.object({ currency: v.picklist(['EUR', 'USD']), amount: v.pipe(v.number(), v.integer(), v.minValue(0)) })),
  /** Whether the registry accepts a designated agent for this name (gTLDs under ICANN policy). */
  designatedAgentAllowed: v.optional(v.boolean(), false),
  /** How a transfer runs: waiting stages in order, then the outcome. No stages: the outcome at once. */
  transfer: v.pipe(
    v.object({
      stages: v.array(TransferStage),
      outcome: ScriptOutcome,
      /** What the registry says when the outcome is rejected or failed. */
      reason: v.optional(v.string()),
    }),
    // A registry that refuses at once does so through its statuses (locks), not through a script.
    v.check((t) => t.outcome === 'completed' || t.stages.length > 0, 'a rejected or failed outcome needs a waiting stage first'),
    v.check(
      (t) => isValidPath([...t.stages.map((s) => s.status), t.outcome]),
      'the stages and outcome must follow the transfer state machine',
    ),
  ),
  /**
   * An outage of the registry for this name: these calls fail with 503 ProviderUnavailable, so
   * clients (and tests) can see what a registry failure does at each step.
   */
  unavailable: v.optional(
    v.array(
      v.picklist([
        'prepareTransfer',
        'requestTransfer',
        'transferState',
        'cancelTransfer',
        'resendFoa',
        'prepareRegistration',
        'registerDomain',
        'registrationState',
        'renewDomain',
        'deleteDomain',
        'restoreDomain',
      ]),
    ),
  ),
  /**
   * A name the registry does not hold as registered: `reserved` (a check answers it unavailable,
   * reason `reserved`), or `available` (free to register; with `premium`, at that create price and
   * `renewPremium` a year). Absent: the name is registered.
   */
  registration: v.optional(v.picklist(['reserved', 'available'])),
  /** An available premium name's renewal price per 12 months, in the premium's currency. */
  renewPremium: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** An available name whose registration is pending this many seconds before it completes. */
  createSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** An available name whose registration, once `createSeconds` have passed, fails with this reason (the name stays free). */
  createFails: v.optional(v.string()),
  /**
   * A name registered through this sandbox: for which customer, when, for how long, and until when
   * the registration is pending (`pendingUntil`). A retry of that customer's request answers it.
   */
  registeredFor: v.optional(
    v.object({ customer: v.string(), requestedDate: WireTime, periodMonths: v.number(), pendingUntil: v.optional(WireTime) }),
  ),
  /** The registrar that sponsors the name now: the losing side of a transfer-in. */
  registrar: v.optional(v.string()),
  /** Deleted (status `redemptionPeriod`): restorable until then; after it the name is free again. */
  redemptionUntil: v.optional(WireTime),
  /** One line for the docs: what this candidate demonstrates. */
  description: v.optional(v.string()),
});
export type RegistryDomainRecord = v.InferOutput<typeof RegistryDomainRecord>;

/**
 * What the sandbox registry remembers of one transfer it was asked for (by name and request
 * time): when the gaining registrar cancelled it, and how often and when it sent the FOA e-mail again.
 */
export const RegistryTransferRecord = v.object({
  domainName: DomainName,
  requestedDate: WireTime,
  cancelledDate: v.optional(WireTime),
  foaResent: v.optional(v.array(WireTime)),
});
export type RegistryTransferRecord = v.InferOutput<typeof RegistryTransferRecord>;
