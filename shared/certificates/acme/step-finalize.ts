import type * as acme from 'acme-client';
import { pollSeconds, problemOf, problemTypeOf, withRetryAfter } from './client.ts';
import { type AcmeStep, deadAuthorization, errorDetail, isRefusal, killedBy, later, refuse, replace } from './order.ts';

/**
 * The order is finalized with the customer's CSR exactly as received; an order already finalized
 * (a pass that crashed after finalizing) is never finalized again. The finalization answers the
 * order (RFC 8555 7.4): `processing`, with the CA's Retry-After for the first read.
 */
export const finalize: AcmeStep = {
  due: (order) => order.step === 'finalize',
  run: async (context) => {
    const { client, request, order, now } = context;
    const read = await withRetryAfter(order.url as string, () => client.getOrder({ url: order.url } as acme.Order));
    const current = read.result;
    if (current.status === 'ready') {
      const finalized = await withRetryAfter(current.finalize, () =>
        client.finalizeOrder({ ...current, url: order.url as string }, request.csr),
      ).catch((error: unknown) => {
        // A refusal (badCSR, rejectedIdentifier, ...) would be answered again to the same request: the order ends.
        const type = problemTypeOf(error);
        if (isRefusal(type)) return `${type}: ${problemOf(error)}`;
        throw error;
      });
      if (typeof finalized === 'string') return refuse(context, finalized);
      const wait = finalized.result.status === 'processing' ? finalized.retryAfter : undefined;
      return { order: { ...order, step: 'download', ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) } };
    }
    if (current.status === 'processing' || current.status === 'valid') {
      const wait = current.status === 'processing' ? read.retryAfter : undefined;
      return { order: { ...order, step: 'download', ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) } };
    }
    if (current.status === 'pending') return { order: { ...order, step: 'validating', notBefore: later(now, pollSeconds) } };
    const dead = await deadAuthorization(client, current);
    if (dead) return replace(context, killedBy(dead));
    if (current.status === 'invalid' && current.error) return refuse(context, errorDetail(current.error));
    throw new Error(`The order is ${current.status}${current.error ? `: ${JSON.stringify(current.error).slice(0, 200)}` : ''}`);
  },
};
