import type { AcmeStep } from './order.ts';

/** The dns-01 TXT records go into the caller's managed zones; names outside them wait for the customer (nextAction names the record). */
export const present: AcmeStep = {
  due: (order) => order.step === 'present',
  run: async ({ order, records }) => ({ order: { ...order, step: 'served', published: await records.publish(order) } }),
};
