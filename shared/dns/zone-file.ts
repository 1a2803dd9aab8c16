import type { DnsRecord, ZoneView } from './zone-view.ts';

/**
 * A zone as an RFC 1035 master file: `$ORIGIN`, `$TTL`, the SOA and NS records the service serves,
 * then every record. Owner names are relative to the origin (`@` for the apex) or absolute with a
 * trailing dot; host names in content are absolute; TXT is quoted and split in strings of at most
 * 255 bytes. Record kinds that are services rather than DNS types (ALIAS, URL, MBOXFW) and a
 * customer SOA record (the zone has the service's) are listed as comments.
 */

/** Types whose whole content is one host name. */
const hostContent = new Set(['CNAME', 'NS', 'DNAME', 'PTR']);
/** Types the service answers itself (web and mail forwarding, apex aliasing): no RFC 1035 type. */
const serviceTypes = new Set(['ALIAS', 'URL', 'MBOXFW']);

/** A fully qualified name with its trailing dot. */
export function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** An owner name relative to the origin where it lies below it, else absolute. */
export function ownerName(name: string, origin: string): string {
  const n = name.replace(/\.$/, '').toLowerCase();
  if (n === origin) return '@';
  if (n.endsWith(`.${origin}`)) return n.slice(0, -(origin.length + 1));
  return absolute(n);
}

/** One TXT value as quoted character-strings of at most 255 bytes each (RFC 1035 3.3.14, 5.1). */
export function quoteTxt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: string[] = [];
  for (let start = 0; start < bytes.length || chunks.length === 0; start += 255) {
    let out = '"';
    for (const byte of bytes.subarray(start, start + 255)) {
      if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
      else if (byte < 0x20 || byte > 0x7e) out += `\\${String(byte).padStart(3, '0')}`;
      else out += String.fromCharCode(byte);
    }
    chunks.push(`${out}"`);
  }
  return chunks.join(' ');
}

/** The RDATA of a record in master-file form; undefined for kinds that have none. */
function rdata(record: DnsRecord): string | undefined {
  const content = record.content.trim();
  if (hostContent.has(record.type)) return absolute(content);
  switch (record.type) {
    case 'MX':
      return `${record.prio ?? 0} ${content === '.' ? '.' : absolute(content)}`;
    case 'SRV': {
      // Stored as `weight port target`, priority apart (contract 3.6).
      const parts = content.split(/\s+/);
      const target = parts.pop() ?? '.';
      return `${record.prio ?? 0} ${parts.join(' ')} ${target === '.' ? '.' : absolute(target)}`;
    }
    case 'TXT':
      return quoteTxt(record.content);
    default:
      return content;
  }
}

/** Content shown in a comment stays on its line. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

function line(record: DnsRecord, origin: string): string {
  const head = `${ownerName(record.name, origin)}\t${record.ttl}\tIN\t${record.type}`;
  if (serviceTypes.has(record.type)) return `; ${head}\t${oneLine(record.content)} (answered by the service; no DNS record type)`;
  return `${head}\t${rdata(record)}`;
}

/** Renders a zone (as the API answers it) for a domain as an RFC 1035 zone file. */
export function toZoneFile(domainName: string, zone: ZoneView): string {
  const origin = domainName.toLowerCase();
  const [soa, ...ns] = zone.defaultRecords;
  const lines = [
    `; Zone ${origin} (id ${zone.id}, ${zone.service}${zone.dnssec ? ', DNSSEC' : ''})`,
    `$ORIGIN ${absolute(origin)}`,
    `$TTL ${zone.ttl}`,
  ];
  if (soa) {
    const [mname = '', rname = '', ...numbers] = soa.content.split(/\s+/);
    lines.push(`@\t${soa.ttl}\tIN\tSOA\t${absolute(mname)} ${absolute(rname)} ${numbers.join(' ')}`);
  }
  for (const record of ns) lines.push(line(record, origin));
  for (const record of zone.records) {
    if (record.type === 'SOA')
      lines.push(
        `; ${ownerName(record.name, origin)}\t${record.ttl}\tIN\tSOA\t${oneLine(record.content)} (the zone's SOA is the service's, above)`,
      );
    else lines.push(line(record, origin));
  }
  return `${lines.join('\n')}\n`;
}
