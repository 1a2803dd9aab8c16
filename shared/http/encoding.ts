import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * Content codings of answers (RFC 9110 8.4, 12.5.3). The function compresses (API Gateway is set to
 * pass the binary body through: binary media types `*\/*`, infra/stack.ts), so an answer is small
 * before it meets Lambda's 6 MB response limit.
 *
 * - An answer whose body is at least `compressAbove` bytes goes out compressed when the client
 *   accepts a coding: `br` (Brotli, quality 4) when it accepts it at least as much as gzip, else
 *   `gzip` (level 6). Measured on the 60,000-entry price list (6.65 MB): gzip 336 KB in 97 ms,
 *   Brotli q4 118 KB in 191 ms, Brotli q11 146 KB (sic) in 40 s; so Brotli at quality 4, about
 *   twice gzip's time for a third of its bytes (docs/performance.md).
 * - No `Accept-Encoding` header: no coding. RFC 9110 would allow any, but a client that sends none
 *   (curl without `--compressed`) would show the compressed bytes.
 * - Every answer says `Vary: Accept-Encoding`; a compressed one says `Content-Encoding`.
 */

/** Bodies shorter than this go out as they are: compressing them saves less than the header costs. */
export const compressAbove = 1024;

export type Coding = 'br' | 'gzip';

/** The q-value of each coding an Accept-Encoding header names (`*` included), lower-cased. */
function qValues(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (token === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    out.set(token === 'x-gzip' ? 'gzip' : token, Number.isFinite(value) ? value : 0);
  }
  return out;
}

/** The coding to answer with for this Accept-Encoding, or undefined for none. */
export function chooseCoding(acceptEncoding: string | undefined): Coding | undefined {
  if (!acceptEncoding) return undefined;
  const q = qValues(acceptEncoding);
  const of = (coding: Coding) => q.get(coding) ?? q.get('*') ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : undefined;
}

/** The body compressed with a coding. */
export function compress(body: Buffer, coding: Coding): Buffer {
  if (coding === 'gzip') return gzipSync(body);
  return brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
}

/** Adds `Accept-Encoding` to a Vary header value (keeping what it named). */
export function varyOnEncoding(vary: string | undefined): string {
  if (!vary) return 'Accept-Encoding';
  return vary.split(',').some((v) => v.trim().toLowerCase() === 'accept-encoding') ? vary : `${vary}, Accept-Encoding`;
}
