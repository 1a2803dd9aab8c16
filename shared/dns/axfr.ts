import { createConnection } from 'node:net';
import * as packet from 'dns-packet';

/**
 * A zone transfer (AXFR, RFC 5936) from a customer's hidden master over TCP, with the DNS wire
 * format of `dns-packet`. Bounded on every side the master controls: the records (`maxRecords`),
 * the bytes read (`maxBytes`) and the time the whole transfer takes (`timeoutMs`). The transfer
 * ends at the second SOA; the master must answer authoritatively (AA set, NOERROR) and start with
 * the zone's SOA.
 */

/** One record of a transfer: owner name (lower-case, no trailing dot), type, TTL and the decoded RDATA. */
export interface TransferredRecord {
  name: string;
  type: string;
  ttl: number;
  data: unknown;
}

export interface TransferLimits {
  maxRecords: number;
  maxBytes: number;
  timeoutMs: number;
}

/** Why a transfer failed, in words a customer reads (no internals). */
export class TransferFailed extends Error {
  constructor(
    readonly reason: 'refused' | 'unreachable' | 'timeout' | 'not-authoritative' | 'too-big' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

/** Transfers `zone` from `host:port`; resolves with every record between the two SOAs (the first SOA included once). */
export function transferZone(host: string, port: number, zone: string, limits: TransferLimits): Promise<TransferredRecord[]> {
  return new Promise((resolve, reject) => {
    const records: TransferredRecord[] = [];
    let buffered = Buffer.alloc(0);
    let bytes = 0;
    let soas = 0;
    let done = false;
    const id = Math.floor(Math.random() * 65536);
    const socket = createConnection({ host, port });
    const finish = (error: TransferFailed | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(records);
    };
    const timer = setTimeout(
      () => finish(new TransferFailed('timeout', `the master did not complete the transfer within ${limits.timeoutMs / 1000} s`)),
      limits.timeoutMs,
    );
    socket.setNoDelay(true);
    socket.on('connect', () => {
      socket.write(packet.streamEncode({ type: 'query', id, flags: 0, questions: [{ type: 'AXFR', name: zone, class: 'IN' }] }));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const refused = error.code === 'ECONNREFUSED';
      finish(
        new TransferFailed(
          refused ? 'refused' : 'unreachable',
          refused ? 'the master refused the connection' : 'the master could not be reached',
        ),
      );
    });
    socket.on('close', () => finish(new TransferFailed('malformed', 'the master closed the connection before the transfer ended')));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        finish(new TransferFailed('too-big', `the transfer is over ${limits.maxBytes} bytes`));
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      while (!done && buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        let decoded: packet.DecodedPacket;
        try {
          decoded = packet.decode(message);
        } catch {
          finish(new TransferFailed('malformed', 'the master sent a message that is not DNS'));
          return;
        }
        if (decoded.id !== id) {
          finish(new TransferFailed('malformed', 'the master answered another query'));
          return;
        }
        const rcode = (decoded as { rcode?: string }).rcode ?? 'NOERROR';
        if (rcode === 'REFUSED') return finish(new TransferFailed('refused', 'the master refused the transfer (REFUSED)'));
        if (rcode !== 'NOERROR') return finish(new TransferFailed('not-authoritative', `the master answered ${rcode}`));
        if (((decoded.flags ?? 0) & packet.AUTHORITATIVE_ANSWER) === 0) {
          return finish(new TransferFailed('not-authoritative', 'the master is not authoritative for the zone'));
        }
        for (const answer of decoded.answers ?? []) {
          const name = answer.name.toLowerCase().replace(/\.$/, '');
          if (records.length === 0 && (answer.type !== 'SOA' || name !== zone)) {
            return finish(new TransferFailed('not-authoritative', "the transfer does not start with the zone's SOA"));
          }
          if (answer.type === 'SOA' && name === zone) {
            soas++;
            if (soas === 2) return finish(undefined);
          }
          if (records.length >= limits.maxRecords) {
            return finish(new TransferFailed('too-big', `the zone has over ${limits.maxRecords} records`));
          }
          records.push({
            name,
            type: answer.type,
            ttl: 'ttl' in answer ? (answer.ttl ?? 0) : 0,
            data: 'data' in answer ? answer.data : undefined,
          });
        }
      }
    });
  });
}
