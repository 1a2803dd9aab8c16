import { createHash, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1 from 'asn1js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caaStatus, parseCaa } from '../shared/certificates/caa.ts';
import { CsrRejected, csrPublicKey, parseCsr } from '../shared/certificates/csr.ts';
import { absoluteRecordName, approverEmails, dcvInstructions, wwwCounterpart } from '../shared/certificates/dcv.ts';
import { OneTimeLinkRejected, oneTimeLink, redeemOneTimeLink } from '../shared/certificates/one-time-link.ts';
import { caOf, signedBy } from '../shared/certificates/sandbox-ca.ts';
import { listCertificateProducts, listCertificates } from '../shared/db/repositories/certificates.ts';
import type { CertificateAuthority } from '../shared/model/certificate.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { derOf, makeCsr, pemOf } from './support/csr.ts';

const authority: CertificateAuthority = {
  name: 'sectigo',
  displayName: 'Sectigo',
  caaIdentifiers: ['sectigo.com', 'comodoca.com'],
  validationManager: true,
  riskChecks: false,
  dcv: { dnsType: 'CNAME', target: 'sectigo.com' },
  maxValidityMonths: 12,
  sandbox: {
    emailApprovedAfterSeconds: 60,
    fileFoundAfterSeconds: 120,
    externalDnsFoundAfterSeconds: 120,
    organizationChecks: {
      organization: { afterSeconds: 1, result: 'VALIDATED' },
      docs: { afterSeconds: 1, result: 'VALIDATED' },
      voice: { afterSeconds: 1, result: 'VALIDATED' },
      agreement: { afterSeconds: 1, result: 'VALIDATED' },
      whois: { afterSeconds: 1, result: 'VALIDATED' },
    },
  },
};

function zone(records: { name: string; type: 'CAA' | 'A'; content: string }[]): ZoneRecord {
  return {
    id: 1,
    domainName: 'example.nl',
    customer: 'demo',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'hostmaster@example.nl',
    refresh: 1,
    retry: 1,
    expire: 1,
    ttl: 1,
    records: records.map((r) => ({ ...r, ttl: 300 })),
    createdDate: '2026-01-01T00:00:00Z',
  };
}

async function rejection(csr: string): Promise<string> {
  try {
    await parseCsr(csr);
  } catch (error) {
    expect(error).toBeInstanceOf(CsrRejected);
    return (error as Error).message;
  }
  throw new Error('the CSR was accepted');
}

describe('CSR parsing and verification', () => {
  it('summarises an RSA 2048 CSR: common name, SANs, subject, key and signature algorithm', async () => {
    const csr = makeCsr({
      key: 'rsa2048',
      subject: 'CN=WWW.Example.NL, O=Example B.V., OU=IT, L=Amsterdam, ST=Noord-Holland, C=NL',
      san: ['www.example.nl', 'example.nl'],
    });
    const { summary } = await parseCsr(csr);
    expect(summary).toEqual({
      commonName: 'www.example.nl',
      san: ['www.example.nl', 'example.nl'],
      subject: { organization: 'Example B.V.', organizationalUnit: 'IT', locality: 'Amsterdam', state: 'Noord-Holland', country: 'NL' },
      keyType: 'RSA',
      keySize: 2048,
      signatureAlgorithm: 'sha256WithRSAEncryption',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('accepts EC P-256 and P-384 keys and names the curve', async () => {
    expect((await parseCsr(makeCsr({ key: 'p256' }))).summary).toMatchObject({
      keyType: 'EC',
      keySize: 256,
      curve: 'P-256',
      signatureAlgorithm: 'ecdsa-with-SHA256',
    });
    expect((await parseCsr(makeCsr({ key: 'p384' }))).summary).toMatchObject({ keyType: 'EC', keySize: 384, curve: 'P-384' });
  });

  it('refuses an RSA key below 2048 bits', async () => {
    expect(await rejection(makeCsr({ key: 'rsa1024' }))).toBe('has an RSA key of 1024 bits; at least 2048 bits are required');
  });

  it('refuses EC curves below P-256 and curves the authorities do not accept', async () => {
    expect(await rejection(makeCsr({ key: 'p192' }))).toBe('has an EC key on curve prime192v1; use P-256, P-384 or P-521');
    expect(await rejection(makeCsr({ key: 'secp256k1' }))).toBe('has an EC key on curve secp256k1; use P-256, P-384 or P-521');
    expect(await rejection(makeCsr({ key: 'ed25519' }))).toMatch(/^has a ed25519 key/);
  });

  it('refuses a CSR whose signature does not verify (RSA and EC)', async () => {
    const message = 'has a signature that does not verify against its own public key';
    expect(await rejection(makeCsr({ key: 'rsa2048', breakSignature: true }))).toBe(message);
    expect(await rejection(makeCsr({ key: 'p256', breakSignature: true }))).toBe(message);
  });

  it('refuses SHA-1 signatures and text that is no CSR', async () => {
    expect(await rejection(makeCsr({ sha1: true }))).toBe('is signed with sha1WithRSAEncryption; use SHA-256 or stronger');
    expect(await rejection(makeCsr({ sha1: true, key: 'p256' }))).toBe('is signed with ecdsa-with-SHA1; use SHA-256 or stronger');
    expect(await rejection(makeCsr({ pss: { hash: 'sha1', saltLength: 20 } }))).toBe(
      'is signed with rsassaPss-SHA1; use SHA-256 or stronger',
    );
    expect(await rejection('not a csr')).toBe('is not a PEM encoded PKCS#10 certificate signing request');
    const pem = makeCsr();
    expect(await rejection(pem.slice(0, 200) + pem.slice(260))).toBe('is not a PEM encoded PKCS#10 certificate signing request');
  });

  it('accepts P-521 keys and SHA-384/512 ECDSA and RSA signatures', async () => {
    expect((await parseCsr(makeCsr({ key: 'p521' }))).summary).toMatchObject({
      keyType: 'EC',
      keySize: 521,
      curve: 'P-521',
      signatureAlgorithm: 'ecdsa-with-SHA256',
    });
    expect((await parseCsr(makeCsr({ key: 'rsa4096' }))).summary).toMatchObject({ keyType: 'RSA', keySize: 4096 });
  });

  it('verifies RSASSA-PSS signatures with the digest and salt length their parameters state', async () => {
    expect((await parseCsr(makeCsr({ pss: { hash: 'sha256', saltLength: 32 } }))).summary).toMatchObject({
      keyType: 'RSA',
      signatureAlgorithm: 'rsassaPss-SHA256',
    });
    expect((await parseCsr(makeCsr({ key: 'rsa4096', pss: { hash: 'sha384', saltLength: 48 } }))).summary).toMatchObject({
      keySize: 4096,
      signatureAlgorithm: 'rsassaPss-SHA384',
    });
    expect((await parseCsr(makeCsr({ pss: { hash: 'sha256', saltLength: 0 } }))).summary.signatureAlgorithm).toBe('rsassaPss-SHA256');
    const message = 'has a signature that does not verify against its own public key';
    expect(await rejection(makeCsr({ pss: { hash: 'sha256', saltLength: 32, statedSaltLength: 20 } }))).toBe(message);
    // A negative salt length is no length: it must not turn into "any salt".
    expect(await rejection(makeCsr({ pss: { hash: 'sha256', saltLength: 32, statedSaltLength: -2 } }))).toBe(message);
    expect(await rejection(makeCsr({ pss: { hash: 'sha256', saltLength: 32 }, breakSignature: true }))).toBe(message);
  });

  it('refuses a signature whose stated algorithm does not fit the key or is unknown', async () => {
    const message = 'has a signature that does not verify against its own public key';
    // An RSA PKCS#1 signature presented as ECDSA, and the other way round.
    expect(await rejection(makeCsr({ key: 'rsa2048', statedAlgorithm: '1.2.840.10045.4.3.2' }))).toBe(message);
    expect(await rejection(makeCsr({ key: 'p256', statedAlgorithm: '1.2.840.113549.1.1.11' }))).toBe(message);
    expect(await rejection(makeCsr({ key: 'p256', statedAlgorithm: '1.2.840.113549.1.1.10' }))).toBe(message);
    // RSASSA-PSS without parameters, SHA-224 with RSA, an unknown OID.
    expect(await rejection(makeCsr({ statedAlgorithm: '1.2.840.113549.1.1.10' }))).toBe(message);
    expect(await rejection(makeCsr({ statedAlgorithm: '1.2.840.113549.1.1.14' }))).toBe(message);
    expect(await rejection(makeCsr({ statedAlgorithm: '1.2.3.4' }))).toBe(message);
    // A digest other than the one signed with.
    expect(await rejection(makeCsr({ key: 'p256', statedAlgorithm: '1.2.840.10045.4.3.3' }))).toBe(message);
  });

  it('refuses a CSR whose signed part was changed after signing (RSA and EC)', async () => {
    const message = 'has a signature that does not verify against its own public key';
    expect(await rejection(makeCsr({ key: 'rsa2048', tamperInfo: true }))).toBe(message);
    expect(await rejection(makeCsr({ key: 'p384', tamperInfo: true }))).toBe(message);
  });

  it('verifies the signed part exactly as it appears in the input, not a re-encoding of it', async () => {
    const csr = makeCsr({ longFormInfoLength: true, san: ['a.example.nl'] });
    const parsed = await parseCsr(csr);
    expect(parsed.summary).toMatchObject({
      commonName: 'www.example.com',
      san: ['a.example.nl'],
      signatureAlgorithm: 'sha256WithRSAEncryption',
    });
    expect(Buffer.from(parsed.der).equals(derOf(csr))).toBe(true);
  });

  it('reads PEM (CRLF, any label, surrounded by text), hex, base64 and base64url DER alike', async () => {
    const pem = makeCsr({ subject: 'CN=www.example.nl, O=Example B.V.', san: ['www.example.nl'] });
    const der = derOf(pem);
    const expected = await parseCsr(pem);
    expect(Buffer.from(expected.der).equals(der)).toBe(true);
    expect(expected.summary.sha256).toBe(createHash('sha256').update(der).digest('hex'));
    for (const text of [
      pem.replace(/\n/g, '\r\n'),
      `Our request:\n${pem.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST')}\nRegards`,
      der.toString('base64'),
      der.toString('base64url'),
      der.toString('hex'),
    ]) {
      expect(await parseCsr(text)).toEqual(expected);
    }
  });

  it('reads the email address and the OU of the subject, and the SAN DNS names lower-cased', async () => {
    const { summary } = await parseCsr(
      makeCsr({ subject: 'CN=Shop.Example.NL, OU=Web, E=Admin@Example.NL', san: ['Shop.Example.NL', 'WWW.shop.example.nl'] }),
    );
    expect(summary).toMatchObject({
      commonName: 'shop.example.nl',
      san: ['shop.example.nl', 'www.shop.example.nl'],
      subject: { organizationalUnit: 'Web', email: 'Admin@Example.NL' },
    });
  });

  it('refuses garbage: random bytes, a DER that is no CSR, a truncated CSR, a malformed extension request', async () => {
    const message = 'is not a PEM encoded PKCS#10 certificate signing request';
    const der = derOf(makeCsr());
    expect(await rejection(pemOf(randomBytes(300)))).toBe(message);
    expect(await rejection(randomBytes(300).toString('base64'))).toBe(message);
    expect(await rejection(pemOf(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00])))).toBe(message);
    expect(await rejection(pemOf(der.subarray(0, der.length - 10)))).toBe(message);
    expect(await rejection('')).toBe(message);
    // Signed correctly, but the extension request is an INTEGER instead of a list of extensions.
    expect(await rejection(makeCsr({ extensionRequestValue: new Uint8Array([0x02, 0x01, 0x05]) }))).toBe(message);
  });

  it("answers any change of a CSR's bytes with its parse or a CsrRejected, never another error", async () => {
    // The reader walks the DER itself (asn1js decodes, csr.ts reads the fields): flipped,
    // replaced, cut and inserted bytes anywhere, in an RSA CSR with SANs and subject fields and in
    // an EC one, must end as a parse (a change the signature does not cover, or none) or as the
    // caller's error.
    const ders = [
      derOf(
        makeCsr({
          subject: 'CN=www.example.nl, O=Example B.V., OU=Web, L=Delft, ST=Zuid-Holland, C=NL',
          san: ['www.example.nl', 'example.nl'],
        }),
      ),
      derOf(makeCsr({ key: 'p256', san: ['a.example.com'] })),
    ];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), byte: fc.constant(0) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: ders.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (which, changes) => {
        let bytes = Buffer.from(ders[which] as Uint8Array);
        for (const { kind, at, byte } of changes) {
          const i = at % (bytes.length + 1);
          if (kind === 'set' && i < bytes.length) bytes[i] = byte;
          if (kind === 'cut') bytes = bytes.subarray(0, i);
          if (kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)]);
        }
        try {
          await parseCsr(pemOf(bytes));
        } catch (error) {
          if (!(error instanceof CsrRejected)) throw error;
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('reads a CSR without common name and without SANs', async () => {
    const { summary } = await parseCsr(makeCsr({ subject: 'O=No Name Ltd, C=GB' }));
    expect(summary.commonName).toBeUndefined();
    expect(summary.san).toEqual([]);
    expect(summary.subject).toEqual({ organization: 'No Name Ltd', country: 'GB' });
  });
});

describe('DCV values', () => {
  const sha = 'ab'.repeat(32);

  it('derives DNS, FILE and EMAIL entries deterministically from the CSR hash and unique value', () => {
    expect(dcvInstructions(authority, sha, 'Unique42', 'www.example.nl', 'DNS')).toEqual({
      commonName: 'www.example.nl',
      type: 'DNS',
      dnsRecord: `_${'ab'.repeat(16)}.www.example.nl`,
      dnsType: 'CNAME',
      dnsContents: `${'ab'.repeat(16)}.${'ab'.repeat(16)}.unique42.sectigo.com`,
    });
    expect(dcvInstructions(authority, sha, 'Unique42', 'www.example.nl', 'FILE')).toEqual({
      commonName: 'www.example.nl',
      type: 'FILE',
      fileLocation: `http://www.example.nl/.well-known/pki-validation/${'AB'.repeat(16)}.txt`,
      fileContents: `${sha}\nsectigo.com\nUnique42`,
    });
    expect(dcvInstructions(authority, sha, 'u', '*.example.nl', 'EMAIL', 'admin@example.nl')).toEqual({
      commonName: '*.example.nl',
      type: 'EMAIL',
      email: 'admin@example.nl',
    });
  });

  it('validates a wildcard on its base name', () => {
    expect(dcvInstructions(authority, sha, 'u', '*.example.nl', 'DNS').dnsRecord).toBe(`_${'ab'.repeat(16)}.example.nl`);
  });

  it('offers the constructed approver mailboxes of the name and its parents', () => {
    expect(approverEmails('shop.example.nl')).toEqual([
      'admin@shop.example.nl',
      'administrator@shop.example.nl',
      'hostmaster@shop.example.nl',
      'postmaster@shop.example.nl',
      'webmaster@shop.example.nl',
      'admin@example.nl',
      'administrator@example.nl',
      'hostmaster@example.nl',
      'postmaster@example.nl',
      'webmaster@example.nl',
    ]);
  });

  it('pairs www and non-www names, never for wildcards', () => {
    expect(wwwCounterpart('www.example.nl')).toBe('example.nl');
    expect(wwwCounterpart('example.nl')).toBe('www.example.nl');
    expect(wwwCounterpart('*.example.nl')).toBeUndefined();
  });

  it('makes zone record names absolute', () => {
    expect(absoluteRecordName('##DOMAIN##', 'example.nl')).toBe('example.nl');
    expect(absoluteRecordName('www.##DOMAIN##', 'example.nl')).toBe('www.example.nl');
    expect(absoluteRecordName('@', 'example.nl')).toBe('example.nl');
    expect(absoluteRecordName('www', 'example.nl')).toBe('www.example.nl');
    expect(absoluteRecordName('www.example.nl.', 'example.nl')).toBe('www.example.nl');
  });
});

describe('CAA evaluation (RFC 8659)', () => {
  it('answers UNKNOWN when the zone is not managed here and EMPTY without CAA records', () => {
    expect(caaStatus('www.example.nl', undefined, authority)).toBe('UNKNOWN');
    expect(caaStatus('www.example.nl', zone([{ name: 'example.nl', type: 'A', content: '192.0.2.1' }]), authority)).toBe('EMPTY');
  });

  it('climbs to the closest CAA set and checks the issuer', () => {
    const z = zone([{ name: '##DOMAIN##', type: 'CAA', content: '0 issue "sectigo.com"' }]);
    expect(caaStatus('www.example.nl', z, authority)).toBe('VALID');
    const other = zone([{ name: '##DOMAIN##', type: 'CAA', content: '0 issue "letsencrypt.org"' }]);
    expect(caaStatus('www.example.nl', other, authority)).toBe('INVALID');
    const closer = zone([
      { name: '##DOMAIN##', type: 'CAA', content: '0 issue "sectigo.com"' },
      { name: 'shop.##DOMAIN##', type: 'CAA', content: '0 issue "digicert.com"' },
    ]);
    expect(caaStatus('shop.example.nl', closer, authority)).toBe('INVALID');
    expect(caaStatus('www.example.nl', closer, authority)).toBe('VALID');
  });

  it('uses issuewild for wildcard names when present, issue otherwise', () => {
    const z = zone([
      { name: 'example.nl', type: 'CAA', content: '0 issue "sectigo.com"' },
      { name: 'example.nl', type: 'CAA', content: '0 issuewild ";"' },
    ]);
    expect(caaStatus('*.example.nl', z, authority)).toBe('INVALID');
    expect(caaStatus('example.nl', z, authority)).toBe('VALID');
  });

  it('ignores parameters after the issuer and sets with only iodef', () => {
    expect(
      caaStatus(
        'example.nl',
        zone([{ name: 'example.nl', type: 'CAA', content: '0 issue "comodoca.com; validationmethods=dns-01"' }]),
        authority,
      ),
    ).toBe('VALID');
    expect(caaStatus('example.nl', zone([{ name: 'example.nl', type: 'CAA', content: '0 iodef "mailto:x@example.nl"' }]), authority)).toBe(
      'VALID',
    );
  });

  it('reports unknown critical tags and malformed records', () => {
    expect(caaStatus('example.nl', zone([{ name: 'example.nl', type: 'CAA', content: '128 tbs "x"' }]), authority)).toBe(
      'UNRECOGNIZED_CRITICAL_TAG',
    );
    expect(caaStatus('example.nl', zone([{ name: 'example.nl', type: 'CAA', content: 'issue sectigo.com' }]), authority)).toBe(
      'MALFORMED_RESPONSE',
    );
    expect(parseCaa('0 issue "sectigo.com"')).toEqual({ critical: false, tag: 'issue', value: 'sectigo.com' });
  });
});

describe('one-time links', () => {
  const at = new Date('2026-11-21T12:00:00Z');

  it('leads to the configured validation manager with a signed token, stable within its window', async () => {
    process.env.VALIDATION_MANAGER_URL = 'https://vm.example.test/validate';
    try {
      const link = await oneTimeLink(501, 'sectigo', at);
      expect(link).toMatch(/^https:\/\/vm\.example\.test\/validate\?token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(await oneTimeLink(501, 'sectigo', new Date(at.getTime() + 1000))).toBe(link);
      expect(await oneTimeLink(502, 'sectigo', at)).not.toBe(link);
    } finally {
      delete process.env.VALIDATION_MANAGER_URL;
    }
  });

  it('works once: a second use, even concurrent, is refused', async () => {
    const token = new URL(await oneTimeLink(7001, 'sectigo', at)).searchParams.get('token') as string;
    const results = await Promise.allSettled([redeemOneTimeLink(token, at), redeemOneTimeLink(token, at)]);
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<unknown>).value)).toEqual([
      { processId: 7001, authority: 'sectigo' },
    ]);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(OneTimeLinkRejected);
    expect(refused.reason.message).toBe('link already used');
  });

  it('refuses a tampered or expired token', async () => {
    const token = new URL(await oneTimeLink(7002, 'sectigo', at)).searchParams.get('token') as string;
    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), p: 1 })).toString('base64url');
    await expect(redeemOneTimeLink(`${forged}.${signature}`, at)).rejects.toThrow('invalid signature');
    await expect(redeemOneTimeLink(token, new Date(at.getTime() + 3 * 86_400_000))).rejects.toThrow('link expired');
    await expect(redeemOneTimeLink('garbage', at)).rejects.toThrow('malformed link');
  });

  it('requires a strong secret, and has none of its own to fall back to', async () => {
    const configured = process.env.ONE_TIME_LINK_SECRET;
    process.env.ONE_TIME_LINK_SECRET = 'short';
    try {
      await expect(oneTimeLink(1, 'sectigo', at)).rejects.toThrow('ONE_TIME_LINK_SECRET must be at least 32 characters long');
      delete process.env.ONE_TIME_LINK_SECRET;
      await expect(oneTimeLink(1, 'sectigo', at)).rejects.toThrow('ONE_TIME_LINK_SECRET is not set');
    } finally {
      process.env.ONE_TIME_LINK_SECRET = configured;
    }
  });
});

describe('certificate repository', () => {
  it("lists a customer's certificates in id order with relative demo dates resolved, and the product catalogue", async () => {
    const certificates = await listCertificates('demo');
    expect(certificates.map((c) => c.id)).toEqual([1001, 1002, 1003]);
    const daysLeft = (new Date(certificates[0]?.expiryDate as string).getTime() - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(24);
    expect(daysLeft).toBeLessThanOrEqual(25);
    expect((await listCertificates('other')).map((c) => c.id)).toEqual([2001]);
    expect((await listCertificateProducts()).map((p) => [p.product, p.authority, p.validationType, p.certificateType])).toEqual([
      ['ssl_digicert_ev', 'digicert', 'EV', 'MULTI_DOMAIN'],
      ['ssl_sectigo_dv', 'sectigo', 'DV', 'SINGLE_DOMAIN'],
      ['ssl_sectigo_dv_multi', 'sectigo', 'DV', 'MULTI_DOMAIN'],
      ['ssl_sectigo_ov', 'sectigo', 'OV', 'SINGLE_DOMAIN'],
    ]);
  });
});

describe("the sandbox CA's signing (asn1js and node:crypto)", () => {
  /** A CA as tables keep it since the sandbox signed: made by @peculiar/x509, before the signing was written with asn1js. */
  const keptCa = async () => {
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      name: [{ CN: ['Registrar Sandbox CA 0A1B2C3D'] }, { O: ['Registrar sandbox (not trusted)'] }],
      notBefore: new Date('2021-11-28T00:00:00Z'),
      notAfter: new Date('2051-11-28T00:00:00Z'),
      keys,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    return {
      certificate: `${certificate.toString('pem')}\n`,
      privateKey: `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`,
      createdDate: '2026-11-28T00:00:00Z',
    };
  };

  it('signs with a CA kept before: the names, key, dates, serial and extensions of the request, chained to the CA', async () => {
    const kept = await keptCa();
    const ca = caOf(kept);
    for (const [key, usages] of [
      ['rsa2048', ['digitalSignature', 'keyEncipherment']],
      ['p256', ['digitalSignature']],
    ] as const) {
      const names = ['www.example.nl', 'example.nl', 'shop.example.nl'];
      const csr = makeCsr({ key, cn: names[0], san: names });
      const signed = signedBy(ca, {
        serialNumber: '0A3F9C',
        commonName: 'www.example.nl',
        names: [...names, 'example.nl'],
        organization: 'Voorbeeld B.V. (Café)',
        startDate: '2026-11-28T03:00:00Z',
        expiryDate: '2027-11-28T03:00:00Z',
        csr,
      });
      expect(signed.chain).toEqual([kept.certificate]);
      const leaf = new X509Certificate(signed.certificate);
      const issuer = new X509Certificate(kept.certificate);
      expect(leaf.checkIssued(issuer), key).toBe(true);
      expect(leaf.verify(issuer.publicKey), key).toBe(true);
      expect(leaf.ca).toBe(false);
      expect(leaf.subject).toBe('CN=www.example.nl\nO=Voorbeeld B.V. (Café)');
      expect(leaf.issuer).toBe(issuer.subject);
      expect(leaf.subjectAltName).toBe('DNS:www.example.nl, DNS:example.nl, DNS:shop.example.nl');
      expect(leaf.publicKey.equals(csrPublicKey(csr))).toBe(true);
      expect(new Date(leaf.validFrom).toISOString()).toBe('2026-11-28T03:00:00.000Z');
      expect(new Date(leaf.validTo).toISOString()).toBe('2027-11-28T03:00:00.000Z');
      expect(leaf.serialNumber).toBe('0A3F9C');
      expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
      // The extensions as a third party reads them.
      const read = new x509.X509Certificate(signed.certificate);
      const basic = read.getExtension(x509.BasicConstraintsExtension);
      expect([basic?.critical, basic?.ca]).toEqual([true, false]);
      const usage = read.getExtension(x509.KeyUsagesExtension);
      expect(usage?.critical).toBe(true);
      expect(usage?.usages).toBe(usages.reduce((bits, u) => bits | x509.KeyUsageFlags[u], 0));
      const authorityKey = read.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
      expect(authorityKey).toBe(new x509.X509Certificate(kept.certificate).getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
      expect(read.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toBe(
        Buffer.from(await new x509.PublicKey(leaf.publicKey.export({ type: 'spki', format: 'der' })).getKeyIdentifier()).toString('hex'),
      );
    }
  });

  it('writes dates from 2050 as GeneralizedTime and a serial with its high bit set as a positive integer', async () => {
    const ca = caOf(await keptCa());
    const signed = signedBy(ca, {
      serialNumber: 'F00D',
      commonName: 'example.nl',
      names: ['example.nl'],
      startDate: '2049-12-31T23:59:59Z',
      expiryDate: '2050-01-01T00:00:00Z',
      csr: makeCsr({ key: 'p256', cn: 'example.nl' }),
    });
    const leaf = new X509Certificate(signed.certificate);
    expect(new Date(leaf.validTo).toISOString()).toBe('2050-01-01T00:00:00.000Z');
    expect(new Date(leaf.validFrom).toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(leaf.serialNumber).toBe('F00D');
    // DER: a leading zero byte keeps it positive.
    const tbs = (asn1.fromBER(Uint8Array.from(leaf.raw).buffer).result as asn1.Sequence).valueBlock.value[0] as asn1.Sequence;
    expect(Buffer.from((tbs.valueBlock.value[1] as asn1.Integer).valueBlock.valueHexView).toString('hex')).toBe('00f00d');
    expect(leaf.subject).toBe('CN=example.nl');
  });
});
