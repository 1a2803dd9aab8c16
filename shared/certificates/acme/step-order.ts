import type * as acme from 'acme-client';
import type { AcmeChallenge, AuthorityOrder } from '../../model/certificate-process.ts';
import { toWireTime } from '../../time.ts';
import type { RequestView } from '../authority.ts';
import { type ListPage, maxOrderPages, nextLink } from './client.ts';
import { type AcmeStep, withChallenges } from './order.ts';

/**
 * The order is placed. The first pass claims the step (`orderingSince`, recorded before any order
 * exists); the claiming pass creates the order. A later pass that finds the claim without an order
 * URL (the pass that claimed it crashed) looks for the order among the account's orders before
 * creating one, so a crash never leaves a second order. (The driver holds off while another run's
 * claim is young enough that it may still be creating the order.)
 */
export const placeOrder: AcmeStep = {
  due: (order) => order.step === 'order',
  run: async ({ client, request, order, run }) => {
    // The claim's time is the wall clock's (not the run's start): other runs hold off for claimSeconds from it.
    if (order.orderingSince === undefined) return { order: { ...order, orderingSince: toWireTime(new Date()), claimedBy: run } };
    const other = request.validations.dcv.find((e) => e.type !== 'DNS');
    // A request opened under another authority integration (the sandbox's demo requests) may ask for EMAIL or FILE.
    if (other)
      throw new Error(
        `${other.commonName} is to be validated by ${other.type}, which the ACME authority does not offer: cancel the request and renew again`,
      );
    const names = identifiers(request);
    let created: acme.Order | undefined;
    if (order.claimedBy !== run || run === '') created = await findOrder(client, names);
    created ??= await client.createOrder({ identifiers: names.map((value) => ({ type: 'dns' as const, value })) });
    const challenges = await challengesOf(client, request, created);
    const expires = Date.parse(created.expires ?? '');
    const placed: AuthorityOrder = {
      step: 'present',
      directory: order.directory,
      url: created.url,
      finalize: created.finalize,
      ...(Number.isFinite(expires) ? { expires: toWireTime(expires) } : {}),
      challenges,
      ...(order.replaced ? { replaced: order.replaced } : {}),
    };
    return { order: placed, validations: withChallenges(request.validations, challenges) };
  },
};

/** The identifiers of the request: every name it certifies. */
function identifiers(request: RequestView): string[] {
  return [...new Set(request.validations.dcv.map((e) => e.commonName.toLowerCase()))];
}

/** The dns-01 challenge of each of the order's authorizations, with the TXT record and value it asks for. */
async function challengesOf(client: acme.Client, request: RequestView, created: acme.Order): Promise<AcmeChallenge[]> {
  const challenges: AcmeChallenge[] = [];
  for (const authz of await client.getAuthorizations(created)) {
    const challenge = authz.challenges.find((c) => c.type === 'dns-01');
    if (!challenge) throw new Error(`The CA offers no dns-01 challenge for ${authz.identifier.value}`);
    const base = authz.identifier.value.toLowerCase();
    // A wildcard's authorization names its base (`a.nl`, wildcard: true) beside the base's own.
    const name = authz.wildcard ? `*.${base}` : base;
    const entry = request.validations.dcv.find((e) => e.commonName.toLowerCase() === name);
    challenges.push({
      name,
      authorization: authz.url,
      challenge: challenge.url,
      record: `_acme-challenge.${base}`,
      value: await client.getChallengeKeyAuthorization(challenge),
      ...(entry?.zone ? { zone: entry.zone } : {}),
      status: authz.status,
    });
  }
  return challenges;
}

/**
 * An order of the account for exactly these names that was never finalized (a pass that created
 * it crashed before recording it): `pending` or `ready`. An order already `processing` or `valid`
 * was finalized, so it was recorded by the request that placed it (an earlier renewal of the same
 * names): never taken. The account's order list (RFC 8555 7.1.2.1) is paged (`Link: rel="next"`;
 * Pebble lists 3 orders a page, oldest first): every page is read, at most maxOrderPages, and the
 * 20 listed last are looked at, last first.
 */
async function findOrder(client: acme.Client, names: string[]): Promise<acme.Order | undefined> {
  const account = (await client.updateAccount({})) as { orders?: string };
  if (!account.orders) return undefined;
  // A POST-as-GET of each page; acme-client's own getOrder would drop the Link header.
  const api = (client as unknown as { api: { apiRequest(url: string, payload: null, codes: number[]): Promise<ListPage> } }).api;
  const urls: string[] = [];
  let page: string | undefined = account.orders;
  for (let read = 0; page !== undefined && read < maxOrderPages; read++) {
    const res: ListPage = await api.apiRequest(page, null, [200]);
    // `{"orders": [...]}` (RFC 8555 7.1.2.1), or, from some CAs, the bare array.
    urls.push(...(Array.isArray(res.data) ? res.data : (res.data.orders ?? [])).filter((u): u is string => typeof u === 'string'));
    page = nextLink(res.headers.link);
  }
  const wanted = [...names].sort().join(',');
  for (const url of urls.slice(-20).reverse()) {
    const found = await client.getOrder({ url } as unknown as acme.Order);
    const got = found.identifiers
      .map((i) => i.value.toLowerCase())
      .sort()
      .join(',');
    if (got === wanted && (found.status === 'pending' || found.status === 'ready')) return { ...found, url };
  }
  return undefined;
}
