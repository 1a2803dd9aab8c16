import type { CertificateAuthority } from '../model/certificate.ts';
import type { CaaRecordStatus } from '../model/certificate-process.ts';
import { servedRecords, type ZoneRecord } from '../model/zone.ts';
import { absoluteRecordName, dcvBase } from './dcv.ts';

/**
 * CAA evaluation (RFC 8659) over a zone the service manages: the relevant record set is the one at
 * the closest name (climbing towards the zone apex); `issuewild` governs wildcard names when
 * present, `issue` otherwise. Names whose zone is not managed here: UNKNOWN (we cannot see it).
 */

interface CaaProperty {
  critical: boolean;
  tag: string;
  value: string;
}

/** Parses `0 issue "sectigo.com"` (flags, tag, quoted or bare value); undefined when malformed. */
export function parseCaa(content: string): CaaProperty | undefined {
  const match = /^\s*(\d{1,3})\s+([A-Za-z0-9]+)\s+(?:"((?:[^"\\]|\\.)*)"|(\S+))\s*$/.exec(content);
  if (!match) return undefined;
  const flags = Number(match[1]);
  if (flags > 255) return undefined;
  return { critical: (flags & 128) !== 0, tag: (match[2] as string).toLowerCase(), value: match[3] ?? match[4] ?? '' };
}

const knownTags = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone', 'issuemail', 'issuevmc']);

/** The issuer domain of an `issue` value: `sectigo.com; validationmethods=dns-01` -> `sectigo.com`; `;` -> none. */
function issuerOf(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

/** CAA status of one name for an authority, given the managed zone holding it (or none). */
export function caaStatus(name: string, zone: ZoneRecord | undefined, authority: CertificateAuthority): CaaRecordStatus {
  if (!zone) return 'UNKNOWN';
  const wildcard = name.startsWith('*.');
  const apex = zone.domainName;
  const caa = servedRecords(zone)
    .filter((r) => r.type === 'CAA')
    .map((r) => ({ name: absoluteRecordName(r.name, apex), content: r.content }));
  let current = dcvBase(name);
  for (;;) {
    const set = caa.filter((r) => r.name === current);
    if (set.length > 0)
      return evaluate(
        set.map((r) => r.content),
        wildcard,
        authority,
      );
    if (current === apex || !current.includes('.')) return 'EMPTY';
    current = current.slice(current.indexOf('.') + 1);
  }
}

function evaluate(contents: string[], wildcard: boolean, authority: CertificateAuthority): CaaRecordStatus {
  const properties: CaaProperty[] = [];
  for (const content of contents) {
    const property = parseCaa(content);
    if (!property) return 'MALFORMED_RESPONSE';
    properties.push(property);
  }
  if (properties.some((p) => p.critical && !knownTags.has(p.tag))) return 'UNRECOGNIZED_CRITICAL_TAG';
  const wild = properties.filter((p) => p.tag === 'issuewild');
  const relevant = wildcard && wild.length > 0 ? wild : properties.filter((p) => p.tag === 'issue');
  // A set without issue/issuewild properties restricts nobody (RFC 8659 section 4.2).
  if (relevant.length === 0) return 'VALID';
  const allowed = new Set(authority.caaIdentifiers.map((id) => id.toLowerCase()));
  return relevant.some((p) => allowed.has(issuerOf(p.value))) ? 'VALID' : 'INVALID';
}
