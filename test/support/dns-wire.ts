import { createHash, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';

/**
 * A DNS query over UDP with the DO bit set (RFC 3225), for what node's resolver cannot ask:
 * RRSIG and DNSKEY records of a signed zone. Only what the tests read is parsed: each answer's
 * owner, type, TTL and RDATA.
 */

export const rrTypes = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, SRV: 33, DS: 43, RRSIG: 46, DNSKEY: 48 } as const;

export interface WireAnswer {
  name: string;
  type: number;
  ttl: number;
  rdata: Buffer;
}

/** A name in wire form (length-prefixed labels, lower-case, ending in the root). */
export function wireName(name: string): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .toLowerCase()
    .split('.')
    .filter((l) => l !== '');
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])), Buffer.from([0])]);
}

/** Reads a possibly compressed name at `offset`; the name and the offset after it. */
function readName(message: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let position = offset;
  let next = -1;
  for (let jumps = 0; jumps < 64; jumps++) {
    const length = message.readUInt8(position);
    if (length === 0) {
      if (next < 0) next = position + 1;
      return { name: labels.join('.'), next };
    }
    if ((length & 0xc0) === 0xc0) {
      if (next < 0) next = position + 2;
      position = message.readUInt16BE(position) & 0x3fff;
      continue;
    }
    labels.push(message.subarray(position + 1, position + 1 + length).toString('ascii'));
    position += 1 + length;
  }
  throw new Error('name compression loop');
}

/** Sends one query and returns the answer section (rcode too), or throws after `timeoutMs`. */
export async function queryWire(
  server: { address: string; port: number },
  name: string,
  type: number,
  timeoutMs = 3000,
): Promise<{ rcode: number; answers: WireAnswer[] }> {
  const id = randomInt(0, 65536);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // RD
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  const question = Buffer.concat([wireName(name), Buffer.from([type >> 8, type & 0xff, 0, 1])]);
  // OPT: root name, type 41, UDP size 4096, extended rcode 0, version 0, flags DO (0x8000), no options.
  const opt = Buffer.from([0, 0, 41, 0x10, 0x00, 0, 0, 0x80, 0x00, 0, 0]);
  const query = Buffer.concat([header, question, opt]);
  const socket = createSocket('udp4');
  try {
    const message = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no DNS answer for ${name} within ${timeoutMs} ms`)), timeoutMs);
      socket.on('message', (msg) => {
        if (msg.readUInt16BE(0) !== id) return;
        clearTimeout(timer);
        resolve(msg);
      });
      socket.on('error', reject);
      socket.send(query, server.port, server.address);
    });
    const rcode = message.readUInt16BE(2) & 0x0f;
    const questions = message.readUInt16BE(4);
    const answerCount = message.readUInt16BE(6);
    let offset = 12;
    for (let i = 0; i < questions; i++) offset = readName(message, offset).next + 4;
    const answers: WireAnswer[] = [];
    for (let i = 0; i < answerCount; i++) {
      const { name: owner, next } = readName(message, offset);
      const rrType = message.readUInt16BE(next);
      const ttl = message.readUInt32BE(next + 4);
      const length = message.readUInt16BE(next + 8);
      answers.push({ name: owner, type: rrType, ttl, rdata: message.subarray(next + 10, next + 10 + length) });
      offset = next + 10 + length;
    }
    return { rcode, answers };
  } finally {
    socket.close();
  }
}

/** The type an RRSIG covers (its first two RDATA bytes). */
export function coveredType(rrsig: WireAnswer): number {
  return rrsig.rdata.readUInt16BE(0);
}

/** RFC 4034 appendix B: the key tag of a DNSKEY's RDATA. */
export function keyTag(dnskey: Buffer): number {
  let sum = 0;
  for (let i = 0; i < dnskey.length; i++) sum += i & 1 ? (dnskey[i] as number) : (dnskey[i] as number) << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** RFC 4509: the SHA-256 DS record (`keytag algorithm 2 digest`) of a zone's DNSKEY, as a zone file writes it. */
export function dsOf(zone: string, dnskey: Buffer): string {
  const digest = createHash('sha256')
    .update(Buffer.concat([wireName(zone), dnskey]))
    .digest('hex');
  return `${keyTag(dnskey)} ${dnskey.readUInt8(3)} 2 ${digest}`;
}
