import * as v from 'valibot';

/**
 * DNS record types a zone may hold. On their own so that the API description can name them
 * without taking the zone records' schemas along (zone.ts re-exports them).
 */

/** Record types of contract 3.6. */
export const recordTypes = [
  'A',
  'AAAA',
  'ALIAS',
  'CAA',
  'CERT',
  'CNAME',
  'DNSKEY',
  'DS',
  'HINFO',
  'LOC',
  'MBOXFW',
  'MX',
  'NAPTR',
  'NS',
  'SOA',
  'SRV',
  'SSHFP',
  'TLSA',
  'TXT',
  'URI',
  'URL',
] as const;
export const RecordType = v.picklist(recordTypes);
