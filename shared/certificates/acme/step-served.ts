import { externalPollSeconds, servedPollSeconds } from './client.ts';
import { type AcmeStep, later } from './order.ts';

/**
 * The CA is asked to validate only once the DNS integration says the records are served (a name
 * outside the managed zones: once the resolver answers the value); until then, looked at again.
 */
export const served: AcmeStep = {
  due: (order) => order.step === 'served',
  run: async ({ order, records, resolver, now }) => {
    if (!(await records.served(order))) return { order: { ...order, notBefore: later(now, servedPollSeconds) } };
    for (const c of order.challenges.filter((p) => p.status === 'pending' && p.zone === undefined)) {
      const answers = await resolver.resolveTxt(c.record).catch(() => [] as string[][]);
      if (!answers.some((chunks) => chunks.join('') === c.value))
        return { order: { ...order, notBefore: later(now, externalPollSeconds) } };
    }
    return { order: { ...order, step: 'validate' } };
  },
};
