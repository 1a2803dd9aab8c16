import { describe, expect, it } from 'vitest';
import { call } from './support/api.ts';
import { changedKeys, snapshotTable } from './support/table-writes.ts';
import { sandboxDomain } from './support/transfer.ts';

/**
 * HTTP and JSON as clients expect them: the ApiKey scheme in any case (RFC 9110), a body with a
 * key given twice refused, internationalized names in their A-label form (UTS #46), and an
 * acknowledged amount below the price now quoted refused with the new quote.
 */

const json = { 'Content-Type': 'application/json' };

describe('a JSON body with a key given twice in one object', () => {
  it('is refused with 400 InvalidMessage, at any depth and however the key is escaped, and nothing is written', async () => {
    await sandboxDomain('dup-keys.com');
    const before = await snapshotTable();
    for (const [body, key] of [
      ['{"customer":"demo","customer":"other","registrant":"demo-registrant"}', 'customer'],
      ['{"customer":"demo","registrant":"demo-registrant","zone":{"service":"BASIC","service":"PREMIUM"}}', 'service'],
      ['{"customer":"demo","\\u0063ustomer":"other","registrant":"demo-registrant"}', 'customer'],
      ['{"customer":"demo","registrant":"demo-registrant","contacts":[{"role":"ADMIN","handle":"demo-admin","handle":"x"}]}', 'handle'],
    ] as const) {
      const res = await call('POST', '/v2/domains/dup-keys.com/transfer', { body, headers: json });
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({
        type: 'InvalidMessage',
        message: `The request body gives the key "${key}" more than once in one object.`,
        requestId: res.headers['x-request-id'],
      });
    }
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
  });

  it('accepts the same key in different objects, and a key-like text inside a string', async () => {
    await sandboxDomain('dup-keys-fine.com', { authcode: '"customer": 1' });
    const body =
      '{"customer":"demo","registrant":"demo-registrant","authcode":"\\"customer\\": 1","contacts":[{"role":"ADMIN","handle":"demo-admin"},{"role":"TECH","handle":"demo-admin"}]}';
    const res = await call('POST', '/v2/domains/dup-keys-fine.com/transfer?quote=true', { body, headers: json });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.command).toBe('DomainTransfer');
  });
});
