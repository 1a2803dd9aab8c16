import { X509Certificate } from 'node:crypto';
import type * as acme from 'acme-client';
import { toWireTime } from '../../time.ts';
import { csrPublicKey } from '../csr.ts';
import { pollSeconds, withRetryAfter } from './client.ts';
import { type AcmeStep, anew, deadAuthorization, errorDetail, killedBy, later, refuse, replace } from './order.ts';

/**
 * The certificate and its chain, once the order is no longer processing (read again after the
 * CA's Retry-After, RFC 8555 7.4, else after pollSeconds), issued only if it certifies the CSR's
 * key; then the challenge records are removed.
 */
export const download: AcmeStep = {
  due: (order) => order.step === 'download',
  run: async (context) => {
    const { client, request, order, now, records } = context;
    const read = await withRetryAfter(order.url as string, () => client.getOrder({ url: order.url } as acme.Order));
    const current = read.result;
    if (current.status === 'processing') return { order: { ...order, notBefore: later(now, read.retryAfter ?? pollSeconds) } };
    if (current.status !== 'valid') {
      const dead = await deadAuthorization(client, current);
      if (dead) return replace(context, killedBy(dead));
      // Refused after its finalization (the CA found the request wanting while processing it): the order ends.
      if (current.status === 'invalid' && current.error) return refuse(context, errorDetail(current.error));
      throw new Error(`The order is ${current.status}, not valid`);
    }
    const pem = await client.getCertificate({ ...current, url: order.url as string });
    const [leaf, ...chain] = splitPem(pem);
    if (!leaf) throw new Error('The CA delivered no certificate');
    await records.remove(order);
    if (!certifiesKeyOf(leaf, request.csr)) {
      // Another request's order (two requests for the same names, one resumed after a crash took the
      // other's order), finalized with its CSR: never this request's certificate. A new order of its
      // own, which publishes its own records.
      const problem = "The order was finalized with another request's CSR; a new order is placed.";
      return { order: anew(order, { problem, notBefore: later(now, pollSeconds) }), note: problem };
    }
    const x = new X509Certificate(leaf);
    return {
      order,
      issued: {
        serialNumber: x.serialNumber.toUpperCase(),
        startDate: toWireTime(new Date(x.validFrom)),
        expiryDate: toWireTime(new Date(x.validTo)),
        certificate: leaf,
        chain,
      },
    };
  },
};

/** Whether a certificate (PEM) certifies the key of a CSR (PEM): the same SubjectPublicKeyInfo. */
function certifiesKeyOf(certificate: string, csr: string): boolean {
  return new X509Certificate(certificate).publicKey.equals(csrPublicKey(csr));
}

/** The PEM blocks of a chain, in order. */
function splitPem(pem: string): string[] {
  // Marker by marker with indexOf (linear), not a lazy regular expression over the whole chain.
  const begin = '-----BEGIN CERTIFICATE-----';
  const end = '-----END CERTIFICATE-----';
  const blocks: string[] = [];
  let from = pem.indexOf(begin);
  while (from >= 0) {
    const stop = pem.indexOf(end, from + begin.length);
    if (stop < 0) break;
    blocks.push(`${pem.slice(from, stop + end.length)}\n`);
    from = pem.indexOf(begin, stop + end.length);
  }
  return blocks;
}
