import type * as acme from 'acme-client';
import { backoffSeconds, pollSeconds, withRetryAfter } from './client.ts';
import { type AcmeStep, anew, isDead, killedBy, later, replace, withChallenges } from './order.ts';

/**
 * The authorizations are read once per pass. All valid: the order is finalized next. An invalid
 * one shows its problem and starts a new order after a back-off; one expired or deactivated, no
 * challenge having failed, has the order replaced at once. Still pending: read again after the
 * longest Retry-After the CA sent with them, else after pollSeconds.
 */
export const validating: AcmeStep = {
  due: (order) => order.step === 'validating',
  run: async (context) => {
    const { client, request, order, now, records } = context;
    const urls = order.challenges.map((c) => c.authorization);
    const read = await withRetryAfter(urls, () => client.getAuthorizations({ authorizations: urls } as unknown as acme.Order));
    const current = read.result;
    const status = new Map(current.map((a) => [a.url, a]));
    const challenges = order.challenges.map((c) => ({ ...c, status: status.get(c.authorization)?.status ?? c.status }));
    const validations = withChallenges(request.validations, challenges);
    const invalid = current.find((a) => a.status === 'invalid');
    if (invalid) {
      const detail =
        (invalid.challenges.find((c) => c.type === 'dns-01') as { error?: { detail?: string } } | undefined)?.error?.detail ??
        `the authorization of ${invalid.identifier.value} is invalid`;
      const problem = detail.replace(/\s+/g, ' ').slice(0, 300);
      // The order is dead: the records go, and a new order starts after the back-off (the entry stays ATTENTION meanwhile).
      await records.remove(order);
      const failures = context.failures + 1;
      return {
        order: anew(order, { problem, failures, notBefore: later(now, backoffSeconds(failures)) }),
        validations,
        note: `The certificate authority refused the validation of ${invalid.identifier.value}: ${problem}`,
      };
    }
    const dead = current.find((a) => isDead(a.status));
    if (dead) return replace(context, killedBy(dead), validations, { ...order, challenges });
    if (challenges.every((c) => c.status === 'valid')) return { order: { ...order, challenges, step: 'finalize' }, validations };
    return { order: { ...order, challenges, notBefore: later(now, read.retryAfter ?? pollSeconds) }, validations };
  },
};
