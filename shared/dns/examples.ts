import type { ZoneListEntry, ZoneView } from './zone-view.ts';

/** A zone of the demo data as the zone API answers it (the API description's examples). */
export const demoZoneExample: ZoneView = {
  id: 101,
  name: 'demo-shop.nl',
  customer: 'demo',
  createdDate: '2024-03-04T11:20:00Z',
  updatedDate: '2026-02-10T08:15:00Z',
  managed: true,
  service: 'BASIC',
  template: 'demo-template',
  link: true,
  dnssec: false,
  hostMaster: 'hostmaster@demo-hosting.example',
  refresh: 10800,
  retry: 3600,
  expire: 604800,
  ttl: 3600,
  defaultRecords: [
    {
      name: 'demo-shop.nl',
      type: 'SOA',
      content: 'ns1.registrar-sandbox.example hostmaster.demo-hosting.example 1770711300 10800 3600 604800 3600',
      ttl: 3600,
    },
    { name: 'demo-shop.nl', type: 'NS', content: 'ns1.registrar-sandbox.example', ttl: 3600 },
  ],
  records: [
    { name: 'demo-shop.nl', type: 'A', content: '192.0.2.10', ttl: 3600 },
    { name: 'demo-shop.nl', type: 'MX', content: 'mx1.demo-hosting.example', ttl: 3600, prio: 10 },
  ],
};

/** A new zone (`POST /v2/dns/zones`) as it is answered. */
export const newZoneExample: ZoneView = {
  id: 105,
  name: 'my-new-site.nl',
  customer: 'demo',
  createdDate: '2026-11-27T12:00:00Z',
  managed: false,
  service: 'BASIC',
  dnssec: false,
  hostMaster: 'hostmaster@my-new-site.nl',
  refresh: 10800,
  retry: 3600,
  expire: 1209600,
  ttl: 3600,
  defaultRecords: [
    {
      name: 'my-new-site.nl',
      type: 'SOA',
      content: 'ns1.registrar-sandbox.example hostmaster.my-new-site.nl 1795780800 10800 3600 1209600 3600',
      ttl: 3600,
    },
    { name: 'my-new-site.nl', type: 'NS', content: 'ns1.registrar-sandbox.example', ttl: 3600 },
  ],
  records: [
    { name: 'my-new-site.nl', type: 'A', content: '192.0.2.80', ttl: 3600 },
    { name: 'www.my-new-site.nl', type: 'CNAME', content: 'my-new-site.nl', ttl: 3600 },
  ],
};

/** A listed zone: the zone without its records. */
export const listedZoneExample: ZoneListEntry = (() => {
  const { records: _, dns: __, ...listed } = demoZoneExample;
  return listed;
})();

/** The request headers of the zone API's writes, for the API description. */
export const zoneWriteHeaders = [
  {
    name: 'Idempotency-Key',
    description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
    example: '0e5b7c1d-2f4a-4b8e-9c3d-6a1f2e3b4c5d',
  },
  {
    name: 'If-Match',
    description:
      'The ETag of the zone as it was read (`"r12.<hash>"`, or a write\'s `"r12"`): the write happens only if the zone is still at that revision, else 412 PreconditionFailed. Without it the last write wins.',
    example: '"r12"',
  },
];

/** A `?quote=true` answer of a write that makes a zone PREMIUM (the demo customer's price list). */
export const premiumQuoteExample = {
  command: 'CreateDnsZoneCommand',
  quote: {
    total: 300,
    currency: 'EUR',
    billables: [{ product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 300, providerName: 'dns', refundable: false, total: 300 }],
  },
};

/** How a zone write is charged, for the API description of create and update. */
export const premiumChargeDescription =
  "A write that makes a zone PREMIUM (a PREMIUM create, an update from BASIC to PREMIUM) is charged `dns_premium` CREATE (12 months) at the caller's own price list, in its currency, in the transaction of the write: the answer names the charge's process in `x-process-id` (COMPLETED, with its `billables`). At the list price it needs no acknowledgment; an acknowledged `amount` below the price now answers 400 BillableAcknowledgmentNeededException with the new quote; a price list without `dns_premium` refuses PREMIUM (400 ValidationError). `?quote=true` answers the quote (`{total: 0}` when nothing is charged) and writes nothing.";
