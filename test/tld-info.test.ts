import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getProvider, putProvider } from '../shared/db/repositories/providers.ts';
import { call, otherKey } from './support/api.ts';

/** GET /v2/tlds/{tld}/info and GET /v2/providers/{name}: registry configuration, the same for every caller. */

describe('GET /v2/tlds/{tld}/info', () => {
  it('answers the metadata of the registry serving the TLD, in the shape the SDKs read, with a hash of it', async () => {
    const res = await call('GET', '/v2/tlds/nl/info');
    expect(res.status).toBe(200);
    const sidn = await getProvider('REGISTRY', 'sidn');
    const { possibleDomainExtensions: _e, explicitRenewSupported: _r, certificateProperties: _c, ...rules } = sidn?.metadata ?? {};
    const metadata = { ...sidn?.tldMetadata, ...rules };
    expect(res.body).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      applicableFor: ['nl'],
      provider: 'sidn',
      metadata,
    });
    expect(res.body.hash).toBe(createHash('sha256').update(JSON.stringify(res.body.metadata)).digest('hex'));
    // What the PHP SDK's TLDMetaData reads without a guard is all there.
    for (const field of [
      'createDomainPeriods',
      'renewDomainPeriods',
      'autoRenewDomainPeriods',
      'transferFOA',
      'adjustableAuthCode',
      'customAuthcodeSupport',
      'transferSupportsAuthcode',
      'transferRequiresAuthcode',
      'creationRequiresPreValidation',
      'featuresAvailable',
      'registrantChangeApprovalRequired',
      'whoisExposure',
      'gdprCategory',
      'domainSyntax',
      'nameservers',
      'registrant',
      'adminContacts',
      'billingContacts',
      'techContacts',
      'premiumSupport',
      'sendWdrpNotifications',
      'sendErrpNotifications',
      'renewalOnTransfer',
      'registrantChangeTransferLock',
      'restoreIncludesRenew',
    ]) {
      expect(res.body.metadata[field], field).toBeDefined();
    }
  });

  it('finds the registry by the longest matching extension, case-insensitively, and applies to what it serves', async () => {
    for (const tld of ['co.uk', 'uk', 'org.uk', 'CO.UK']) {
      const res = await call('GET', `/v2/tlds/${tld}/info`);
      expect({ tld, provider: res.body.provider, applicableFor: res.body.applicableFor }).toEqual({
        tld,
        provider: 'nominet',
        applicableFor: ['uk', 'co.uk'],
      });
    }
    expect((await call('GET', '/v2/tlds/net/info')).body).toMatchObject({ provider: 'verisign', applicableFor: ['com', 'net'] });
  });

  it('changes its hash exactly when the metadata changes, and is the same for every caller', async () => {
    const first = await call('GET', '/v2/tlds/com/info');
    expect((await call('GET', '/v2/tlds/com/info', { key: otherKey })).raw).toBe(first.raw);
    const verisign = await getProvider('REGISTRY', 'verisign');
    if (!verisign?.tldMetadata) throw new Error('verisign has no TLD metadata');
    await putProvider({ ...verisign, tldMetadata: { ...verisign.tldMetadata, transferLockDays: 30 } });
    const changed = await call('GET', '/v2/tlds/com/info');
    expect(changed.body.metadata.transferLockDays).toBe(30);
    expect(changed.body.hash).not.toBe(first.body.hash);
    await putProvider(verisign);
    expect((await call('GET', '/v2/tlds/com/info')).body.hash).toBe(first.body.hash);
  });

  it('answers 404 for a TLD no registry serves, and 400 for one that is no extension', async () => {
    const unknown = await call('GET', '/v2/tlds/example/info');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "TLD 'example' does not exist.",
      objectType: 'TLD',
      identifier: 'example',
      requestId: unknown.headers['x-request-id'],
    });
    const bad = await call('GET', '/v2/tlds/-nl/info');
    expect(bad.status).toBe(400);
    expect(bad.body.violations).toEqual([
      { field: 'tld', message: 'is not a valid extension (lower-case, punycode for IDN)', value: '-nl' },
    ]);
  });
});

describe('GET /v2/providers/{name}', () => {
  it('answers a registry with the TLDs it serves, at both paths the SDKs use, for every caller', async () => {
    const plain = await call('GET', '/v2/providers/nominet');
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ name: 'nominet', tlds: ['uk', 'co.uk'] });
    const php = await call('GET', '/v2/providers/REGISTRY/NOMINET');
    expect(php.raw).toBe(plain.raw);
    expect((await call('GET', '/v2/providers/sidn', { key: otherKey })).body).toEqual({ name: 'sidn', tlds: ['nl'] });
  });

  it('answers 404 for an unknown provider', async () => {
    const res = await call('GET', '/v2/providers/nobody');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Provider', identifier: 'nobody' });
  });
});
