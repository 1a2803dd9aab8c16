import type { AcmeStep } from './order.ts';
import { replace } from './order.ts';

/**
 * An order past its expiry before it was finalized is invalid at the CA (RFC 8555 7.1.3), and its
 * authorizations may no longer be readable (Boulder answers an expired one 404): it is replaced
 * without asking the CA about it.
 */
export const expired: AcmeStep = {
  due: (order, now) =>
    order.step !== 'order' && order.step !== 'download' && order.expires !== undefined && Date.parse(order.expires) <= now.getTime(),
  run: (context) => replace(context, `The order expired at the certificate authority (${context.order.expires}): a new order is placed.`),
};
