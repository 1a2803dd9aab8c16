import type { DomainRecord, DomainStatus, DomainZone } from '../model/domain.ts';
import type { ZoneHeader } from '../model/zone.ts';
import type { DomainField, DomainSelection, DomainView } from './domain-view.ts';

/** Every field of a domain, in wire order (`fields` names some of them). */
export const domainFields = [
  'domainName',
  'registry',
  'customer',
  'registrant',
  'privacyProtect',
  'status',
  'authcode',
  'languageCode',
  'autoRenew',
  'autoRenewPeriod',
  'ns',
  'childHosts',
  'createdDate',
  'updatedDate',
  'expiryDate',
  'premium',
  'gateway',
  'zone',
  'contacts',
  'keyData',
  'dsData',
] as const satisfies readonly DomainField[];

// Every field of the view is listed above (a field added to the view and not here fails to compile).
const listsEveryField: Exclude<DomainField, (typeof domainFields)[number]> extends never ? true : never = true;
void listsEveryField;

/** The zone a domain shows: its managed zone's header, when it has one. */
export function domainZoneOf(zone: ZoneHeader | undefined): DomainZone | undefined {
  if (!zone?.managed) return undefined;
  return {
    id: zone.id,
    service: zone.service,
    ...(zone.template !== undefined ? { template: zone.template } : {}),
    dnssec: zone.dnssec,
    ...(zone.master !== undefined ? { master: zone.master } : {}),
  };
}

/**
 * A domain as the API shows it to its owner (the caller's own: the authcode is the owner's to
 * see). A transfer running for the name adds PENDING_TRANSFER.
 */
export function domainViewOf(d: DomainRecord, extra: { zone?: DomainZone; pendingTransfer?: boolean } = {}): DomainView {
  const status = (
    extra.pendingTransfer && !d.status.includes('PENDING_TRANSFER') ? [...d.status, 'PENDING_TRANSFER'] : d.status
  ) as DomainStatus[];
  return {
    domainName: d.domainName,
    registry: d.registry,
    customer: d.customer,
    registrant: d.registrant,
    privacyProtect: d.privacyProtect,
    status,
    ...(d.authcode !== undefined ? { authcode: d.authcode } : {}),
    ...(d.languageCode !== undefined ? { languageCode: d.languageCode } : {}),
    autoRenew: d.autoRenew,
    autoRenewPeriod: d.autoRenewPeriod,
    ns: d.ns,
    ...(d.childHosts?.length ? { childHosts: d.childHosts } : {}),
    createdDate: d.createdDate,
    updatedDate: d.updatedDate,
    expiryDate: d.expiryDate,
    premium: d.premium,
    gateway: false,
    ...(extra.zone ? { zone: extra.zone } : {}),
    contacts: d.contacts,
    ...(d.keyData.length > 0 ? { keyData: d.keyData } : {}),
    ...(d.dsData?.length ? { dsData: d.dsData } : {}),
  };
}

/** The view with only the fields asked for (all of them without `fields`). */
export function selectFields(view: DomainView, fields: readonly DomainField[] | undefined): DomainSelection {
  if (fields === undefined) return view;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (view[f] !== undefined) out[f] = view[f];
  return out as DomainSelection;
}
