import { getCertificateAuthority, getCertificateProduct } from '../db/repositories/certificates.ts';
import type { CertificateAuthority, CertificateProduct } from '../model/certificate.ts';

/**
 * Certificate products and authorities are configuration (loaded by the admin CLI, changed
 * rarely), read on every renewal and process-info request. A warm function keeps what it read in
 * module scope for `CATALOGUE_CACHE_SECONDS` (default 300, like the exchange rates), so those
 * requests spend their table calls on the caller's own data. A change to the catalogue is seen
 * within that time. Only found records are cached: a missing one is looked up again each time.
 */

const entries = new Map<string, { value: unknown; expires: number }>();

function ttlMs(): number {
  const seconds = Number(process.env.CATALOGUE_CACHE_SECONDS ?? 300);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 300_000;
}

async function cached<T>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.value as T;
  const value = await load();
  if (value === undefined) entries.delete(key);
  else entries.set(key, { value, expires: now + ttlMs() });
  return value;
}

/** A certificate product by name (cached). */
export function catalogueProduct(product: string): Promise<CertificateProduct | undefined> {
  return cached(`product#${product}`, () => getCertificateProduct(product));
}

/** A certificate authority by name (cached). */
export function catalogueAuthority(name: string): Promise<CertificateAuthority | undefined> {
  return cached(`authority#${name}`, () => getCertificateAuthority(name));
}

/** Drops everything cached (tests, and after changing the catalogue in the same process). */
export function forgetCatalogue(): void {
  entries.clear();
}
