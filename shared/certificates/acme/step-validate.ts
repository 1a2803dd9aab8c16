import type * as acme from 'acme-client';
import type { AcmeStep } from './order.ts';

/** Each pending challenge is answered, once only: one already processing or valid (a pass that crashed after answering) is left alone. */
export const validate: AcmeStep = {
  due: (order) => order.step === 'validate',
  run: async ({ order, client }) => {
    const pending = order.challenges.filter((c) => c.status === 'pending');
    const current = await client.getAuthorizations({ authorizations: pending.map((c) => c.authorization) } as unknown as acme.Order);
    for (const authz of current) {
      const challenge = authz.challenges.find((c) => c.type === 'dns-01');
      if (authz.status === 'pending' && challenge?.status === 'pending') await client.completeChallenge(challenge);
    }
    return { order: { ...order, step: 'validating' } };
  },
};
