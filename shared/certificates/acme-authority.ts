import { createHash, X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import * as acme from 'acme-client';
import { secretValue } from '../aws/secrets.ts';
import { claimAcmeAccount, getAcmeAccount, recordAcmeAccountUrl } from '../db/repositories/acme-accounts.ts';
import { absoluteName, type DnsProvider, putRecordSet, removeRecordSet } from '../dns/provider.ts';
import { logger } from '../logger.ts';
import type { CertificateAuthority, ValidationLevel } from '../model/certificate.ts';
import type { AcmeChallenge, AuthorityOrder, DcvState, Validations } from '../model/certificate-process.ts';
import type { ZoneRecord } from '../model/zone.ts';
import { toWireTime } from '../time.ts';
import { AcmePlanning, AcmeRequests } from './acme-plan.ts';
import type { CertificateAuthorityGateway, DcvChoice, Issued, RequestView, Step } from './authority.ts';
import { csrPublicKey } from './csr.ts';

/**
 * The ACME authority (RFC 8555), on acme-client: one client path to every CA resellers buy from
 * (Sectigo, DigiCert, GlobalSign Atlas, ZeroSSL, Google Trust Services, all with External Account
 * Binding). A request's order is a step machine (docs/certificates.md): each `advance` decides
 * from the recorded order alone which step is due, takes it, and answers the order as it now
 * stands; the DCV job records it before the next step. Steps:
 *
 * order -> present -> served -> validate -> validating -> finalize -> download
 *
 * - `order`: the first pass claims the step (`orderingSince`, recorded); the claiming pass creates
 *   the order. A later pass that finds the claim without an order URL (the pass that claimed it
 *   crashed) looks for the order among the account's orders before creating one, so a crash
 *   never leaves a second order.
 * - `present`: the dns-01 TXT records go into the caller's managed zones through the DNS
 *   integration; names outside them wait for the customer (nextAction names the record).
 * - `served`: the CA is asked to validate only once the DNS integration says the records are
 *   served (a name outside the managed zones: once the resolver answers the value).
 * - `validate`: each pending challenge is answered; `validating`: the authorizations are read once
 *   per pass (an invalid one shows its problem and starts a new order after a back-off; one
 *   expired or deactivated, no challenge having failed, has the order replaced at once).
 * - `finalize`: the order is finalized with the customer's CSR exactly as received (an order
 *   already finalized is not finalized again); `download`: the certificate and its chain, once the
 *   order is no longer processing (read again after the CA's Retry-After), issued only if it
 *   certifies the CSR's key; then the challenge records are removed.
 *
 * A failure (the CA unreachable, a problem document) keeps the order and its step; it is recorded
 * with the problem's detail and retried after a back-off or the CA's Retry-After. No call polls:
 * acme-client's own retries and waits are switched off, and each HTTP call times out.
 */

/** Per HTTP call to the CA: `ACME_TIMEOUT_SECONDS` (default 4: within what the DCV job keeps back from its timeout). */
const callTimeoutMs = (Number(process.env.ACME_TIMEOUT_SECONDS) || 4) * 1000;
acme.axios.defaults.timeout = callTimeoutMs;
// The step machine retries, after Retry-After or its back-off; acme-client must not wait inside a call.
(acme.axios.defaults as unknown as { acmeSettings: { retryMaxAttempts: number } }).acmeSettings.retryMaxAttempts = 0;

/** The first back-off after a failure: `ACME_RETRY_SECONDS` (default 15). */
const retrySeconds = Number(process.env.ACME_RETRY_SECONDS) || 15;

/** How long a step waits before it is tried again after a failure: doubling from retrySeconds, at most 15 min. */
function backoffSeconds(failures: number): number {
  return Math.min(retrySeconds * 2 ** Math.max(0, failures - 1), 900);
}

/** Where a step is tried again while the CA is still working (pending authorizations, processing orders), seconds. */
const pollSeconds = 2;
/** Where a step waits for records to be served: the DNS integration (seconds). */
const servedPollSeconds = 5;
/** How often a record the customer publishes outside the managed zones is looked up again: `ACME_DNS_RECHECK_SECONDS` (default 60). */
const externalPollSeconds = Number(process.env.ACME_DNS_RECHECK_SECONDS) || 60;

/**
 * How long a claim of the step `order` by one run holds (seconds): another run finding the claim
 * younger than this neither looks for the order nor creates one, since the claimant may still be
 * creating it (its call to the CA times out within `ACME_TIMEOUT_SECONDS`, and it sends it right
 * after recording the claim). Older, the claimant died: the order is looked for, then created.
 */
const claimSeconds = (2 * callTimeoutMs) / 1000 + 2;

/** How many pages of the account's order list are read when looking for an order after a crash. */
const maxOrderPages = 50;

/**
 * The resolver that looks up the records customers publish outside the managed zones:
 * `ACME_DNS_RESOLVER` (`host:port`, comma-separated), else the system's.
 */
export function resolverFor(env: Record<string, string | undefined> = process.env): Pick<Resolver, 'resolveTxt'> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  const servers = (env.ACME_DNS_RESOLVER ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (servers.length > 0) resolver.setServers(servers);
  return resolver;
}

/** The URL of a Link header's `rel="next"` (RFC 8288), read without a regular expression. */
export function nextLink(header: string | string[] | undefined): string | undefined {
  const links = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const link of links.split(',')) {
    const open = link.indexOf('<');
    const close = link.indexOf('>', open + 1);
    if (open < 0 || close < 0) continue;
    const params = link
      .slice(close + 1)
      .replaceAll('"', '')
      .replaceAll(' ', '')
      .toLowerCase();
    if (params.split(';').includes('rel=next')) return link.slice(open + 1, close);
  }
  return undefined;
}

/** The directory and External Account Binding of one authority and validation level. */
export interface AcmeSettings {
  directoryUrl: string;
  /** The HMAC key absent: it is the stack's secret `ACME_EAB_HMAC_KEY`, read when the account is registered. */
  eab?: { kid: string; hmacKey?: string };
}

/**
 * The settings of an authority and level, from the environment: `ACME_DIRECTORY_URL_<AUTHORITY>_<LEVEL>`,
 * else `ACME_DIRECTORY_URL_<AUTHORITY>`, else `ACME_DIRECTORY_URL` (Sectigo's DV and OV directories
 * differ); EAB from `ACME_EAB_KID` and `ACME_EAB_HMAC_KEY` (with the same suffixes first).
 */
export function acmeSettingsFor(
  authority: string,
  level: ValidationLevel,
  env: Record<string, string | undefined> = process.env,
): AcmeSettings {
  const suffixes = [`_${authority}_${level}`.toUpperCase().replaceAll('-', '_'), `_${authority}`.toUpperCase().replaceAll('-', '_'), ''];
  const pick = (name: string) => suffixes.map((s) => env[`${name}${s}`]?.trim()).find((value) => value);
  const directoryUrl = pick('ACME_DIRECTORY_URL');
  if (!directoryUrl)
    throw new Error(
      `No ACME directory for ${authority} ${level}: set ACME_DIRECTORY_URL (or ACME_DIRECTORY_URL_${authority.toUpperCase()})`,
    );
  const kid = pick('ACME_EAB_KID');
  const hmacKey = pick('ACME_EAB_HMAC_KEY');
  return { directoryUrl, ...(kid ? { eab: { kid, ...(hmacKey ? { hmacKey } : {}) } } : {}) };
}

/** The id of the account kept for a directory. */
function accountId(directoryUrl: string): string {
  return createHash('sha256').update(directoryUrl).digest('hex').slice(0, 32);
}

const clients = new Map<string, Promise<acme.Client>>();

/** The client of the service's account at a directory: registered once (with EAB), its URL kept and reused. */
function accountClient(settings: AcmeSettings): Promise<acme.Client> {
  let client = clients.get(settings.directoryUrl);
  if (!client) {
    client = openAccount(settings);
    clients.set(settings.directoryUrl, client);
    client.catch(() => clients.delete(settings.directoryUrl));
  }
  return client;
}

async function openAccount(settings: AcmeSettings): Promise<acme.Client> {
  const id = accountId(settings.directoryUrl);
  let account = await getAcmeAccount(id);
  if (!account) {
    const accountKey = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
    account = await claimAcmeAccount(id, { directoryUrl: settings.directoryUrl, accountKey, createdDate: toWireTime(new Date()) });
  }
  const client = new acme.Client({
    directoryUrl: settings.directoryUrl,
    accountKey: account.accountKey,
    ...(account.accountUrl ? { accountUrl: account.accountUrl } : {}),
    // EAB is used once, to register; a registered account needs none (and its secret is not read).
    ...(settings.eab && !account.accountUrl
      ? { externalAccountBinding: { kid: settings.eab.kid, hmacKey: settings.eab.hmacKey ?? (await secretValue('ACME_EAB_HMAC_KEY')) } }
      : {}),
    backoffAttempts: 1,
    backoffMin: 100,
    backoffMax: 100,
  });
  if (!account.accountUrl) {
    // A key the CA knows already (a registration whose URL was never recorded) answers its account: no second one.
    await client.createAccount({ termsOfServiceAgreed: true });
    await recordAcmeAccountUrl(id, client.getAccountUrl());
    logger.info('acme account registered', { directory: settings.directoryUrl });
  }
  return client;
}

/** Forgets the clients (tests that restart the CA, or change the settings). */
export function forgetAcmeClients(): void {
  clients.clear();
}

/** What went wrong with a call to the CA, in one bounded line (a problem document's detail, or the network error). */
export function problemOf(error: unknown): string {
  // acme-client 5.4.0 turns a call that got no response at all (refused, timed out) into this TypeError once its own retries are off.
  if (error instanceof TypeError && /reading 'config'/.test(error.message))
    return 'No answer from the certificate authority (refused or timed out).';
  const e = error as { response?: { data?: { detail?: string } }; code?: string; message?: string };
  const text = e.response?.data?.detail ?? (e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? String(error)));
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * A Retry-After header (RFC 9110 10.2.3) in seconds from `nowMs`: delta-seconds or an HTTP-date;
 * undefined when absent, unreadable, or not in the future.
 */
export function retryAfterSeconds(header: unknown, nowMs = Date.now()): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const value = text.trim();
  const seconds = /^\d+$/.test(value) ? Number(value) : (Date.parse(value) - nowMs) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** The CA's Retry-After on a failed call, in seconds, when it sent one (at most an hour). */
function retryAfterOf(error: unknown): number | undefined {
  const seconds = retryAfterSeconds((error as { response?: { headers?: Record<string, unknown> } }).response?.headers?.['retry-after']);
  return seconds === undefined ? undefined : Math.min(seconds, 3600);
}

/** Where the CA's Retry-After on a successful poll is honoured: at least 1 s, at most 15 min (RFC 8555 7.4). */
export function pollWaitSeconds(header: unknown, nowMs = Date.now()): number | undefined {
  const seconds = retryAfterSeconds(header, nowMs);
  return seconds === undefined ? undefined : Math.min(Math.max(seconds, 1), 900);
}

/**
 * The headers of the last answer to each URL a step watches (an order, its finalization, its authorizations):
 * acme-client answers an order's body only, so its own axios instance (public: `acme.axios`) is
 * asked for the response. The response is kept, not its headers copied, so a header is read once
 * every interceptor has seen it. Only watched URLs are kept, and each is forgotten when read.
 */
const watched = new Map<string, { watchers: number; last?: { headers?: Record<string, unknown> } }>();
acme.axios.interceptors.response.use((res) => {
  const watch = res.config.url === undefined ? undefined : watched.get(res.config.url);
  if (watch) watch.last = res as unknown as { headers?: Record<string, unknown> };
  return res;
});

/**
 * Runs `call`, answering its result and the Retry-After (bounded) of the last answers to `urls`:
 * the longest any of them asked for, undefined when none sent one.
 */
async function withRetryAfter<T>(
  urls: string | readonly string[],
  call: () => Promise<T>,
): Promise<{ result: T; retryAfter: number | undefined }> {
  const watches = [...new Set(typeof urls === 'string' ? [urls] : urls)].map((url) => {
    const watch = watched.get(url) ?? { watchers: 0 };
    watch.watchers++;
    delete watch.last;
    watched.set(url, watch);
    return [url, watch] as const;
  });
  try {
    const result = await call();
    // Set by the interceptor meanwhile (a narrowing of `last` at `delete` does not see that).
    const waits = watches.map(([url]) => pollWaitSeconds(watched.get(url)?.last?.headers?.['retry-after']));
    const asked = waits.filter((wait) => wait !== undefined);
    return { result, retryAfter: asked.length > 0 ? Math.max(...asked) : undefined };
  } finally {
    for (const [url, watch] of watches) if (--watch.watchers === 0) watched.delete(url);
  }
}

/** One page of an account's order list, as acme-client's HTTP layer answers it. */
interface ListPage {
  data: { orders?: string[] };
  headers: Record<string, string | string[] | undefined>;
}

const later = (now: Date, seconds: number) => toWireTime(new Date(now.getTime() + seconds * 1000));

/** The TXT value as it is served (quoted). */
const quoted = (value: string) => `"${value}"`;

/** The step functions answer the order after the step, and the validations when they change. */
interface Taken {
  order: AuthorityOrder;
  validations?: Validations;
  issued?: Issued;
  note?: string;
}

export class AcmeAuthority extends AcmePlanning implements CertificateAuthorityGateway {
  constructor(
    authority: CertificateAuthority,
    private readonly dns: () => Promise<DnsProvider>,
    private readonly env: Record<string, string | undefined> = process.env,
    private readonly resolver: Pick<Resolver, 'resolveTxt'> = resolverFor(env),
  ) {
    super(authority);
  }

  private settings(level: ValidationLevel): AcmeSettings {
    return acmeSettingsFor(this.authority.name, level, this.env);
  }

  async advance(request: RequestView, _zones: Map<string, ZoneRecord | undefined>, now: Date, run = ''): Promise<Step> {
    const directory = this.settings(request.validationLevel).directoryUrl;
    const order: AuthorityOrder = request.order ?? { step: 'order', directory, challenges: [] };
    if (order.notBefore !== undefined && Date.parse(order.notBefore) > now.getTime()) return { validations: request.validations, order };
    // Another run's claim of the step `order`, young enough that it may still be creating the order: nothing is done meanwhile.
    if (order.step === 'order' && order.orderingSince !== undefined && (order.claimedBy !== run || run === '')) {
      if (Date.parse(order.orderingSince) + claimSeconds * 1000 > Date.now()) return { validations: request.validations, order };
    }
    try {
      // A step that goes through clears the last failure (a step that fails anew records its own).
      const { failures: _failures, problem: _problem, notBefore: _notBefore, ...base } = order;
      const taken = await this.take(request, base, now, run, order.failures ?? 0);
      return {
        validations: taken.validations ?? request.validations,
        order: taken.order,
        ...(taken.issued ? { issued: taken.issued } : {}),
        ...(taken.note ? { note: taken.note } : {}),
      };
    } catch (error) {
      const problem = problemOf(error);
      const failures = (order.failures ?? 0) + 1;
      logger.warn('acme step failed', { processId: request.processId, step: order.step, failures, problem });
      const wait = retryAfterOf(error) ?? backoffSeconds(failures);
      return {
        validations: request.validations,
        order: { ...order, failures, problem, notBefore: later(now, wait) },
        ...(problem !== order.problem ? { note: `The certificate authority could not take the step '${order.step}': ${problem}` } : {}),
      };
    }
  }

  private async take(request: RequestView, order: AuthorityOrder, now: Date, run: string, failures: number): Promise<Taken> {
    const client = await accountClient(this.settings(request.validationLevel));
    // An order past its expiry before it was finalized is invalid at the CA (RFC 8555 7.1.3), and
    // its authorizations may no longer be readable (Boulder answers an expired one 404): replaced.
    const unfinalized = order.step !== 'order' && order.step !== 'download';
    if (unfinalized && order.expires !== undefined && Date.parse(order.expires) <= now.getTime())
      return this.replace(request, order, `The order expired at the certificate authority (${order.expires}): a new order is placed.`, now);
    switch (order.step) {
      case 'order':
        return this.placeOrder(client, request, order, now, run);
      case 'present':
        return this.present(order);
      case 'served':
        return this.served(order, now);
      case 'validate':
        return this.validate(client, order);
      case 'validating':
        return this.validating(client, request, order, now, failures);
      case 'finalize':
        return this.finalize(client, request, order, now);
      case 'download':
        return this.download(client, request, order, now);
    }
  }

  /** The identifiers of the request: every name it certifies. */
  private identifiers(request: RequestView): string[] {
    return [...new Set(request.validations.dcv.map((e) => e.commonName.toLowerCase()))];
  }

  private async placeOrder(client: acme.Client, request: RequestView, order: AuthorityOrder, now: Date, run: string): Promise<Taken> {
    // First claim the step (recorded before any order exists): a pass that finds a claim of another
    // pass and no order may be after a crash between creating the order and recording it.
    // The claim's time is the wall clock's (not the run's start): other runs hold off for claimSeconds from it.
    if (order.orderingSince === undefined) return { order: { ...order, orderingSince: toWireTime(new Date()), claimedBy: run } };
    void now;
    const other = request.validations.dcv.find((e) => e.type !== 'DNS');
    // A request opened under another authority integration (the sandbox's demo requests) may ask for EMAIL or FILE.
    if (other)
      throw new Error(
        `${other.commonName} is to be validated by ${other.type}, which the ACME authority does not offer: cancel the request and renew again`,
      );
    const names = this.identifiers(request);
    let created: acme.Order | undefined;
    if (order.claimedBy !== run || run === '') created = await this.findOrder(client, names);
    created ??= await client.createOrder({ identifiers: names.map((value) => ({ type: 'dns' as const, value })) });
    const authorizations = await client.getAuthorizations(created);
    const challenges: AcmeChallenge[] = [];
    for (const authz of authorizations) {
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
  }

  /**
   * An order of the account for exactly these names that was never finalized (a pass that created
   * it crashed before recording it): `pending` or `ready`. An order already `processing` or `valid`
   * was finalized, so it was recorded by the request that placed it (an earlier renewal of the same
   * names): never taken. The account's order list (RFC 8555 7.1.2.1) is paged (`Link: rel="next"`;
   * Pebble lists 3 orders a page, oldest first): every page is read, at most maxOrderPages, and the
   * 20 listed last are looked at, last first.
   */
  private async findOrder(client: acme.Client, names: string[]): Promise<acme.Order | undefined> {
    const account = (await client.updateAccount({})) as { orders?: string };
    if (!account.orders) return undefined;
    // A POST-as-GET of each page; acme-client's own getOrder would drop the Link header.
    const api = (client as unknown as { api: { apiRequest(url: string, payload: null, codes: number[]): Promise<ListPage> } }).api;
    const urls: string[] = [];
    let page: string | undefined = account.orders;
    for (let read = 0; page !== undefined && read < maxOrderPages; read++) {
      const res: ListPage = await api.apiRequest(page, null, [200]);
      urls.push(...(res.data.orders ?? []));
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

  /** The TXT records of the challenges in managed zones, one record set per name (a wildcard and its base share one). */
  private recordSets(order: AuthorityOrder): Map<string, { zone: string; name: string; values: string[] }> {
    const sets = new Map<string, { zone: string; name: string; values: string[] }>();
    for (const c of order.challenges) {
      if (c.zone === undefined) continue;
      const key = `${c.zone} ${c.record}`;
      const set = sets.get(key) ?? { zone: c.zone, name: c.record, values: [] };
      if (!set.values.includes(quoted(c.value))) set.values.push(quoted(c.value));
      sets.set(key, set);
    }
    return sets;
  }

  private dnsProvider(): Promise<DnsProvider> {
    return this.dns();
  }

  /**
   * Adds (or takes away) this order's values in the TXT record set of a name, keeping the values
   * other orders for the same name published meanwhile (two certificates naming one domain renew
   * at once): read, merged, written, one change at a time per zone within this process.
   */
  private async changeTxt(dns: DnsProvider, set: { zone: string; name: string; values: string[] }, add: boolean) {
    const zone = absoluteName(set.zone);
    const name = absoluteName(set.name);
    return serialized(zone, async () => {
      const served = (await dns.zone(zone))?.recordSets.find((r) => r.name === name && r.type === 'TXT')?.values ?? [];
      const others = served.filter((value) => !set.values.includes(value));
      const values = add ? [...others, ...set.values] : others;
      if (values.length > 0) return putRecordSet(dns, zone, { name, type: 'TXT', ttl: 60, values });
      if (served.length === 0) return { zone };
      return removeRecordSet(dns, zone, { name, type: 'TXT', ttl: 60, values: served });
    });
  }

  private async present(order: AuthorityOrder): Promise<Taken> {
    const published: NonNullable<AuthorityOrder['published']> = [];
    const sets = [...this.recordSets(order).values()];
    if (sets.length > 0) {
      const dns = await this.dnsProvider();
      for (const set of sets) {
        const handle = await this.changeTxt(dns, set, true);
        published.push({ zone: handle.zone, ...(handle.id !== undefined ? { id: handle.id } : {}) });
      }
    }
    return { order: { ...order, step: 'served', published } };
  }

  private async served(order: AuthorityOrder, now: Date): Promise<Taken> {
    const pending = order.challenges.filter((c) => c.status === 'pending');
    if ((order.published ?? []).length > 0) {
      const dns = await this.dnsProvider();
      for (const handle of order.published ?? []) {
        if (!(await dns.isServed(handle))) return { order: { ...order, notBefore: later(now, servedPollSeconds) } };
      }
    }
    for (const c of pending.filter((p) => p.zone === undefined)) {
      const answers = await this.resolver.resolveTxt(c.record).catch(() => [] as string[][]);
      if (!answers.some((chunks) => chunks.join('') === c.value))
        return { order: { ...order, notBefore: later(now, externalPollSeconds) } };
    }
    return { order: { ...order, step: 'validate' } };
  }

  private async validate(client: acme.Client, order: AuthorityOrder): Promise<Taken> {
    const pending = order.challenges.filter((c) => c.status === 'pending');
    const current = await client.getAuthorizations({ authorizations: pending.map((c) => c.authorization) } as unknown as acme.Order);
    for (const authz of current) {
      const challenge = authz.challenges.find((c) => c.type === 'dns-01');
      // Answered once only: a challenge already processing or valid (a pass that crashed after answering) is left alone.
      if (authz.status === 'pending' && challenge?.status === 'pending') await client.completeChallenge(challenge);
    }
    return { order: { ...order, step: 'validating' } };
  }

  private async validating(client: acme.Client, request: RequestView, order: AuthorityOrder, now: Date, failed: number): Promise<Taken> {
    const urls = order.challenges.map((c) => c.authorization);
    // Still pending: read again after the longest Retry-After the CA sent with them, else after pollSeconds.
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
      await this.removeRecords(order);
      const failures = failed + 1;
      return {
        order: anew(order, { problem, failures, notBefore: later(now, backoffSeconds(failures)) }),
        validations,
        note: `The certificate authority refused the validation of ${invalid.identifier.value}: ${problem}`,
      };
    }
    const dead = current.find((a) => isDead(a.status));
    if (dead) return this.replace(request, { ...order, challenges }, killedBy(dead), now, validations);
    if (challenges.every((c) => c.status === 'valid')) return { order: { ...order, challenges, step: 'finalize' }, validations };
    return { order: { ...order, challenges, notBefore: later(now, read.retryAfter ?? pollSeconds) }, validations };
  }

  private async finalize(client: acme.Client, request: RequestView, order: AuthorityOrder, now: Date): Promise<Taken> {
    const read = await withRetryAfter(order.url as string, () => client.getOrder({ url: order.url } as acme.Order));
    const current = read.result;
    if (current.status === 'ready') {
      // The finalization answers the order (RFC 8555 7.4): `processing`, with the CA's Retry-After for the first read.
      const finalized = await withRetryAfter(current.finalize, () =>
        client.finalizeOrder({ ...current, url: order.url as string }, request.csr),
      );
      const wait = finalized.result.status === 'processing' ? finalized.retryAfter : undefined;
      return { order: { ...order, step: 'download', ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) } };
    }
    // Already finalized (a pass that crashed after finalizing): never a second finalization.
    if (current.status === 'processing' || current.status === 'valid') {
      const wait = current.status === 'processing' ? read.retryAfter : undefined;
      return { order: { ...order, step: 'download', ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) } };
    }
    if (current.status === 'pending') return { order: { ...order, step: 'validating', notBefore: later(now, pollSeconds) } };
    const dead = await this.deadAuthorization(client, current);
    if (dead) return this.replace(request, order, killedBy(dead), now);
    throw new Error(`The order is ${current.status}${current.error ? `: ${JSON.stringify(current.error).slice(0, 200)}` : ''}`);
  }

  private async download(client: acme.Client, request: RequestView, order: AuthorityOrder, now: Date): Promise<Taken> {
    const read = await withRetryAfter(order.url as string, () => client.getOrder({ url: order.url } as acme.Order));
    const current = read.result;
    // Still issuing: read again after the CA's Retry-After (RFC 8555 7.4), else after pollSeconds.
    if (current.status === 'processing') return { order: { ...order, notBefore: later(now, read.retryAfter ?? pollSeconds) } };
    if (current.status !== 'valid') {
      const dead = await this.deadAuthorization(client, current);
      if (dead) return this.replace(request, order, killedBy(dead), now);
      throw new Error(`The order is ${current.status}, not valid`);
    }
    const pem = await client.getCertificate({ ...current, url: order.url as string });
    const [leaf, ...chain] = splitPem(pem);
    if (!leaf) throw new Error('The CA delivered no certificate');
    if (!certifiesKeyOf(leaf, request.csr)) {
      // Another request's order (two requests for the same names, one resumed after a crash took the
      // other's order), finalized with its CSR: never this request's certificate. A new order of its own.
      // Its challenge records go with it: the new order publishes its own.
      await this.removeRecords(order);
      const problem = "The order was finalized with another request's CSR; a new order is placed.";
      return {
        order: anew(order, { problem, notBefore: later(now, pollSeconds) }),
        note: problem,
      };
    }
    await this.removeRecords(order);
    const x = new X509Certificate(leaf);
    const issued: Issued = {
      serialNumber: x.serialNumber.toUpperCase(),
      startDate: toWireTime(new Date(x.validFrom)),
      expiryDate: toWireTime(new Date(x.validTo)),
      certificate: leaf,
      chain,
    };
    return { order, issued };
  }

  /**
   * The authorization that killed an order no longer `pending`, `ready`, `processing` or `valid`,
   * when it expired or was deactivated (by the account's holder, elsewhere; or Pebble's order
   * status `deactivated`); undefined when a challenge failed instead (an `invalid` authorization).
   */
  private async deadAuthorization(client: acme.Client, current: acme.Order): Promise<acme.Authorization | undefined> {
    const authorizations = await client.getAuthorizations(current);
    if (authorizations.some((a) => a.status === 'invalid')) return undefined;
    return authorizations.find((a) => isDead(a.status));
  }

  /**
   * Replaces an order that expired, or one of whose authorizations expired or was deactivated at
   * the CA: no challenge failed, so nothing needs the customer's attention. Its records go, and a
   * new order for the same CSR is placed (recorded as one step: one new order per dead order);
   * `replaced` counts the orders replaced so, and the note says why. The first two are placed at
   * once; from the third, after the back-off of a failure (doubling from ACME_RETRY_SECONDS, at most
   * 15 minutes), so that orders a CA keeps killing cost it a few orders an hour, not one a pass.
   */
  private async replace(
    request: RequestView,
    order: AuthorityOrder,
    note: string,
    now: Date,
    validations: Validations = request.validations,
  ): Promise<Taken> {
    await this.removeRecords(order);
    const replaced = (order.replaced ?? 0) + 1;
    const wait = replaced > freeReplacements ? backoffSeconds(replaced - freeReplacements) : undefined;
    return {
      order: anew(order, { replaced, ...(wait !== undefined ? { notBefore: later(now, wait) } : {}) }),
      validations,
      note: wait !== undefined ? `${note.slice(0, -1)} in ${wait} s (order ${replaced} replaced).` : note,
    };
  }

  /** Removes the challenge records the order published (a record already gone is no error). */
  private async removeRecords(order: AuthorityOrder): Promise<void> {
    if ((order.published ?? []).length === 0) return;
    const dns = await this.dnsProvider();
    for (const set of this.recordSets(order).values()) await this.changeTxt(dns, set, false);
  }

  /** The customer's cancel, resend and DCV change: answered without calling the CA (acme-plan.ts). */
  private readonly requests = new AcmeRequests(this.authority);

  cancel(request: RequestView, now: Date): Promise<{ withdrawLater: boolean }> {
    return this.requests.cancel(request, now);
  }

  resendDcvEmails(request: RequestView, entries: readonly DcvState[], now: Date): Promise<{ date: string; commonNames: string[] }> {
    return this.requests.resendDcvEmails(request, entries, now);
  }

  changeDcv(
    request: RequestView,
    choices: readonly DcvChoice[],
    now: Date,
  ): Promise<{ entries: DcvState[]; resend: { date: string; commonNames: string[] } }> {
    return this.requests.changeDcv(request, choices, now);
  }

  /**
   * Withdraws the order of a cancelled request (the DCV job, after the cancellation was recorded):
   * every authorization still pending or valid is deactivated, and the challenge records go.
   */
  async withdraw(request: RequestView): Promise<void> {
    const order = request.order;
    if (!order?.url) return;
    const client = await accountClient(this.settings(request.validationLevel));
    const urls = order.challenges.map((c) => c.authorization);
    // Still pending: read again after the longest Retry-After the CA sent with them, else after pollSeconds.
    const read = await withRetryAfter(urls, () => client.getAuthorizations({ authorizations: urls } as unknown as acme.Order));
    const current = read.result;
    for (const authz of current) if (authz.status === 'pending' || authz.status === 'valid') await client.deactivateAuthorization(authz);
    await this.removeRecords(order);
  }
}

const zoneQueues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every change to the same zone started before it in this process. */
function serialized<T>(zone: string, fn: () => Promise<T>): Promise<T> {
  const previous = zoneQueues.get(zone) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(fn);
  zoneQueues.set(zone, next);
  next
    .finally(() => {
      if (zoneQueues.get(zone) === next) zoneQueues.delete(zone);
    })
    .catch(() => undefined);
  return next;
}

/** How many dead orders are replaced at once before a replacement waits a back-off. */
const freeReplacements = 2;

/** A new order in place of `order` (its directory, and its count of orders replaced), with `rest` recorded beside. */
function anew(order: AuthorityOrder, rest: Partial<AuthorityOrder> = {}): AuthorityOrder {
  return { step: 'order', directory: order.directory, challenges: [], ...(order.replaced ? { replaced: order.replaced } : {}), ...rest };
}

/** An authorization that can no longer become valid without a challenge having failed: the order must be replaced. */
function isDead(status: string): boolean {
  return status === 'expired' || status === 'deactivated';
}

/** The note of an order replaced because of an authorization. */
function killedBy(authorization: acme.Authorization): string {
  return `The authorization of ${authorization.identifier.value} is ${authorization.status} at the certificate authority: a new order is placed.`;
}

/** The DCV entries with the challenges' TXT values and statuses. */
function withChallenges(validations: Validations, challenges: readonly AcmeChallenge[]): Validations {
  return {
    ...validations,
    dcv: validations.dcv.map((entry) => {
      const challenge = challenges.find((c) => c.name === entry.commonName.toLowerCase());
      if (!challenge) return entry;
      const status = challenge.status === 'valid' ? 'VALIDATED' : challenge.status === 'invalid' ? 'ATTENTION' : 'WAITING';
      return { ...entry, dnsRecord: challenge.record, dnsType: 'TXT' as const, dnsContents: challenge.value, status };
    }),
  };
}

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
