import type { DnsRecord, ZoneView } from './zone-view.ts';

/**
 * A zone as an RFC 1035 master file: `$ORIGIN`, `$TTL`, the SOA and NS records the service serves,
 * then every record. Owner names are relative to the origin (`@` for the apex) or absolute with a
 * trailing dot; host names in content are absolute; TXT is quoted and split in strings of at most
 * 255 bytes. Record kinds that are services rather than DNS types (ALIAS, URL, MBOXFW) and a
 * customer SOA record (the zone has the service's) are listed as comments.
 *
 * Nothing stored can add a line or a directive: records are checked by type when written
 * (shared/model/zone-validation.ts), and this writer, whatever it is given, refuses CR, LF and
 * every other control character (the request fails with a logged 500 rather than serve a zone
 * that says something else), escapes in names what RFC 1035 section 5.1 requires (`\$` at the
 * start of a line is no directive, `\;` no comment, `\(` no continuation, `\DDD` for bytes
 * outside printable ASCII) and, in other RDATA, the same outside quoted strings.
 */

/** A stored record holding a character a zone file cannot carry. */
export class UnwritableRecord extends Error {}

/** Refuses text with CR, LF or another control character (C0 or DEL). */
function refuseControls(text: string, what: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f)
      throw new UnwritableRecord(`${what} holds control character ${code}; it cannot be written to a zone file`);
  }
  return text;
}

/** Characters RFC 1035 (5.1) gives a meaning in a master file, escaped with a backslash where they are data. */
const special = new Set(['"', '(', ')', ';', '@', '$', '\\']);

/** A name (one or more labels, dots as separators) with RFC 1035's escapes: `\X` for specials and spaces, `\DDD` for other bytes. */
export function escapeName(name: string): string {
  let out = '';
  for (const ch of refuseControls(name, `name '${name.slice(0, 64)}'`)) {
    if (special.has(ch) || ch === ' ') out += `\\${ch}`;
    else if (ch.charCodeAt(0) > 0x7e) for (const byte of Buffer.from(ch, 'utf8')) out += `\\${String(byte).padStart(3, '0')}`;
    else out += ch;
  }
  return out;
}

/** RDATA in presentation form as stored: quoted strings kept, `(`, `)` and `;` outside them escaped. */
function presentation(content: string, what: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i] as string;
    if (ch === '\\' && i + 1 < content.length) {
      out += ch + content[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    out += !quoted && (ch === '(' || ch === ')' || ch === ';') ? `\\${ch}` : ch;
  }
  return refuseControls(quoted ? `${out}"` : out, what);
}

/** Types whose whole content is one host name. */
const hostContent = new Set(['CNAME', 'NS', 'DNAME', 'PTR']);
/** Types the service answers itself (web and mail forwarding, apex aliasing): no RFC 1035 type. */
const serviceTypes = new Set(['ALIAS', 'URL', 'MBOXFW']);

/** A fully qualified name with its trailing dot. */
export function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** An owner name relative to the origin where it lies below it, else absolute; escaped. */
export function ownerName(name: string, origin: string): string {
  const n = name.replace(/\.$/, '').toLowerCase();
  if (n === origin) return '@';
  if (n.endsWith(`.${origin}`)) return escapeName(n.slice(0, -(origin.length + 1)));
  return escapeName(absolute(n));
}

/** A host name in RDATA: absolute, escaped (`.` alone stays the root). */
function hostName(text: string): string {
  return text === '.' ? '.' : escapeName(absolute(text));
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
export function rdata(record: DnsRecord): string | undefined {
  const what = `the ${record.type} record of '${record.name.slice(0, 64)}'`;
  const content = refuseControls(record.content, what).trim();
  if (hostContent.has(record.type)) return hostName(content);
  switch (record.type) {
    case 'MX':
      return `${record.prio ?? 0} ${hostName(content)}`;
    case 'SRV': {
      // Stored as `weight port target`, priority apart (contract 3.6).
      const parts = content.split(/\s+/);
      const target = parts.pop() ?? '.';
      return `${record.prio ?? 0} ${presentation(parts.join(' '), what)} ${hostName(target)}`;
    }
    case 'TXT':
      return quoteTxt(record.content);
    default:
      return presentation(content, what);
  }
}

/** Content shown in a comment: one line, by refusing what would end it. */
function oneLine(text: string): string {
  return refuseControls(text, 'a commented record');
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
    const [mname = '', rname = '', ...numbers] = refuseControls(soa.content, 'the SOA record').split(/\s+/);
    lines.push(`@\t${soa.ttl}\tIN\tSOA\t${hostName(mname)} ${absolute(rname)} ${numbers.join(' ')}`);
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
