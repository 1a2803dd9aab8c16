import { describe, expect, it } from 'vitest';
import { call } from './support/api.ts';
import { type KeyData, usePowerDnsWithDelv } from './support/delv.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// DNSSEC of the zone API (issue 37 item 5) against a real PowerDNS: `dnssec: true` signs the zone,
// `keyData` shows the key the parent needs, and the answers validate with a validating resolver
// (BIND's `delv`, Debian's bind9-dnsutils fetched without root like PowerDNS itself) trusting
// exactly that key, after the zone's creation and after an update.
const { drain, delv } = usePowerDnsWithDelv();

describe('DNSSEC of a zone made with the zone API', () => {
  it('signs it, shows keyData, and its answers validate with that key, before and after an update', async () => {
    const created = await call('POST', '/v2/dns/zones', {
      body: {
        name: 'api-signed.nl',
        service: 'PREMIUM',
        dnssec: true,
        records: [{ name: 'www.api-signed.nl', type: 'A', content: '192.0.2.61', ttl: 300 }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await drain();
    const read = await call('GET', `/v2/dns/zones/${created.body.id}`);
    expect(read.body.dns).toMatchObject({
      status: 'served',
      ds: expect.arrayContaining([expect.stringMatching(/^\d+ 13 2 [0-9a-f]{64}$/)]),
    });
    const keyData = read.body.keyData as KeyData[];
    expect(keyData).toEqual([{ flags: 257, protocol: 3, algorithm: 13, publicKey: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) }]);

    const first = await delv('api-signed.nl', keyData, 'www.api-signed.nl');
    expect(first).toContain('; fully validated');
    expect(first).toMatch(/www\.api-signed\.nl\.\s+300\s+IN\s+A\s+192\.0\.2\.61/);

    const updated = await call('POST', `/v2/dns/zones/${created.body.id}/update`, {
      body: { records: [{ name: 'www.api-signed.nl', type: 'A', content: '192.0.2.62', ttl: 300 }] },
      headers: { 'If-Match': read.headers.etag as string },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    await drain();
    const after = await delv('api-signed.nl', keyData, 'www.api-signed.nl');
    expect(after).toContain('; fully validated');
    expect(after).toMatch(/IN\s+A\s+192\.0\.2\.62/);

    // Trusting another key, the same answers do not validate: the check can fail.
    const other = await call('GET', '/v2/domains/demo-secure.com/zone');
    const wrong = (other.body.keyData as KeyData[] | undefined) ?? [
      { ...keyData[0], publicKey: (keyData[0] as KeyData).publicKey.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) } as KeyData,
    ];
    const refused = await delv('api-signed.nl', wrong, 'www.api-signed.nl');
    expect(refused).not.toContain('; fully validated');
  }, 120_000);
});
