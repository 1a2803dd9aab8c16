import { isIP } from 'node:net';
import { isPublicUnicast } from '../schemas/address.ts';

/**
 * Where a webhook may point (no SSRF): an `https` URL whose host resolves, at every delivery, to
 * public unicast addresses only, by the rule of every address a customer gives
 * (shared/schemas/address.ts: private, loopback, link-local, shared, documentation, multicast and
 * reserved ranges, IPv4 and IPv6, and every IPv6 form that carries an IPv4 address). The one
 * exception is for trying webhooks out locally: with `WEBHOOKS_ALLOW_LOOPBACK=true` (set by
 * `npm start` when asked, and by the tests; never by the stack), `http://127.0.0.1:<port>/...`.
 */

/** Whether an address is public unicast (what a webhook may be delivered to): the rule of every customer-given address. */
export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && isPublicUnicast(address);
}

/** Whether loopback receivers are allowed (`WEBHOOKS_ALLOW_LOOPBACK=true`: local trials and tests only). */
export function loopbackAllowed(): boolean {
  return process.env.WEBHOOKS_ALLOW_LOOPBACK === 'true';
}

export const loopbackHost = '127.0.0.1';
/** Said with a refused local or http receiver: how a local sandbox takes one. */
export const localReceiverHint = ` (a local sandbox takes http://${loopbackHost}:<port>/... when started with WEBHOOKS_ALLOW_LOOPBACK=true)`;
export const maxUrlLength = 2048;

/** Why a URL cannot be a webhook endpoint, or undefined when it can (its host is resolved at each delivery). */
export function endpointUrlProblem(text: string): string | undefined {
  if (text.length > maxUrlLength) return `must be at most ${maxUrlLength} characters long`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = loopbackAllowed() && host === loopbackHost;
  // A receiver on this machine is what a local trial points to: say how the sandbox takes one.
  const local = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  const howLocally = !loopbackAllowed() && (local || url.protocol === 'http:') ? localReceiverHint : '';
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:')) return `must be an https URL${howLocally}`;
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not have a fragment';
  if (isIP(host) !== 0 && !isPublicAddress(host) && !loopback) return `must point to a public address${local ? howLocally : ''}`;
  if (isIP(host) === 0 && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')))
    return `must name a public host${local ? howLocally : ''}`;
  return undefined;
}

/** Whether an address a delivery resolved may be connected to (public, or the allowed loopback). */
export function deliverableAddress(address: string): boolean {
  return isPublicAddress(address) || (loopbackAllowed() && address === loopbackHost);
}
