import { createHash } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import * as acme from 'acme-client';
import { secretValue } from '../../aws/secrets.ts';
import { claimAcmeAccount, getAcmeAccount, recordAcmeAccountUrl } from '../../db/repositories/acme-accounts.ts';
import { logger } from '../../logger.ts';
import type { ValidationLevel } from '../../model/certificate.ts';
import { toWireTime } from '../../time.ts';

/**
 * The ACME client of the order's steps (acme-client): the service's account at each directory,
 * the timings of the step machine, and what a step reads of the CA's answers (problems,
 * Retry-After, the order list's pages).
 */

/** Per HTTP call to the CA: `ACME_TIMEOUT_SECONDS` (default 4: within what the DCV job keeps back from its timeout). */
const callTimeoutMs = (Number(process.env.ACME_TIMEOUT_SECONDS) || 4) * 1000;
acme.axios.defaults.timeout = callTimeoutMs;
// The step machine retries, after Retry-After or its back-off; acme-client must not wait inside a call.
(acme.axios.defaults as unknown as { acmeSettings: { retryMaxAttempts: number } }).acmeSettings.retryMaxAttempts = 0;

/** The first back-off after a failure: `ACME_RETRY_SECONDS` (default 15). */
export const retrySeconds = Number(process.env.ACME_RETRY_SECONDS) || 15;

/** How long a step waits before it is tried again after a failure: doubling from retrySeconds, at most 15 min. */
export function backoffSeconds(failures: number): number {
  return Math.min(retrySeconds * 2 ** Math.max(0, failures - 1), 900);
}

/** Where a step is tried again while the CA is still working (pending authorizations, processing orders), seconds. */
export const pollSeconds = 2;
/** Where a step waits for records to be served: the DNS integration (seconds). */
export const servedPollSeconds = 5;
/** How often a record the customer publishes outside the managed zones is looked up again: `ACME_DNS_RECHECK_SECONDS` (default 60). */
export const externalPollSeconds = Number(process.env.ACME_DNS_RECHECK_SECONDS) || 60;

/**
 * How long a claim of the step `order` by one run holds (seconds): another run finding the claim
 * younger than this neither looks for the order nor creates one, since the claimant may still be
 * creating it (its call to the CA times out within `ACME_TIMEOUT_SECONDS`, and it sends it right
 * after recording the claim). Older, the claimant died: the order is looked for, then created.
 */
export const claimSeconds = (2 * callTimeoutMs) / 1000 + 2;

/** How many pages of the account's order list are read when looking for an order after a crash. */
export const maxOrderPages = 50;

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
export function accountClient(settings: AcmeSettings): Promise<acme.Client> {
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
export function retryAfterOf(error: unknown): number | undefined {
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
const watched = new Map<string, { watchers: number; last?: { headers?: Record<string, unknown>; data?: unknown } }>();
acme.axios.interceptors.response.use((res) => {
  const watch = res.config.url === undefined ? undefined : watched.get(res.config.url);
  if (watch) watch.last = res as unknown as { headers?: Record<string, unknown>; data?: unknown };
  return res;
});

/**
 * Runs `call`, answering its result and the Retry-After (bounded) of the last answers to `urls`:
 * the longest any of them asked for, undefined when none sent one.
 */
export async function withRetryAfter<T>(
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
  } catch (error) {
    // acme-client's error keeps only the problem's detail: the answer goes with it (its type, its Retry-After).
    const answer = watches.map(([url]) => watched.get(url)?.last).find((last) => last !== undefined);
    if (answer && error instanceof Error && !('response' in error)) Object.assign(error, { response: answer });
    throw error;
  } finally {
    for (const [url, watch] of watches) if (--watch.watchers === 0) watched.delete(url);
  }
}

/** One page of an account's order list, as acme-client's HTTP layer answers it. */
export interface ListPage {
  data: { orders?: unknown[] } | unknown[];
  headers: Record<string, string | string[] | undefined>;
}

/** The type of the ACME problem a failed call answered (`badCSR`, ...: RFC 8555 6.7), when the answer is known. */
export function problemTypeOf(error: unknown): string | undefined {
  const type = (error as { response?: { data?: { type?: unknown } } }).response?.data?.type;
  const prefix = 'urn:ietf:params:acme:error:';
  return typeof type === 'string' && type.startsWith(prefix) ? type.slice(prefix.length) : undefined;
}
