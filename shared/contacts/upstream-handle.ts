import { createHash } from 'node:crypto';

/** Base32 (RFC 4648, lower case) of a digest. */
function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/**
 * The handle a customer's contact has upstream: the start of its own handle (for the operator who
 * reads the upstream account), a dash and 16 characters of a digest of the customer and the handle
 * (80 bits: distinct for every customer and handle). At most 37 characters, a valid handle.
 */
export function upstreamHandleOf(customer: string, handle: string): string {
  const digest = base32(createHash('sha256').update(customer).update('\0').update(handle).digest()).slice(0, 16);
  return `${handle.slice(0, 20)}-${digest}`;
}
