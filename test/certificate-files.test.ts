import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as downloadHandler } from '../functions/certificate-download/handler.ts';
import type { CertificateRecord } from '../shared/model/certificate.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { type TestChain, testChain } from './support/issued-chain.ts';

/** GET /v2/ssl/certificates/{id} and its download, through the local gateway and the real handlers. */

const names = ['www.demo-shop.nl', 'demo-shop.nl'];
const csr = makeCsr({ cn: names[0], san: names, key: 'p256' });
let chain: TestChain;
let issued: CertificateRecord;

beforeAll(async () => {
  chain = await testChain(names);
  issued = await testCertificate({
    processId: 77,
    keyType: 'EC-P-256',
    csr,
    certificate: chain.leaf,
    chain: [chain.intermediate],
  });
});

const pemBlocks = (text: string) => text.match(/-----BEGIN [A-Z0-9 ]+-----[^-]+-----END [A-Z0-9 ]+-----\n/g) ?? [];

describe('GET /v2/ssl/certificates/{certificateId}', () => {
  it('answers a demo certificate in the SDKs shape, with the file the sandbox CA signed', async () => {
    const res = await call('GET', '/v2/ssl/certificates/1001');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 1001,
      // The completed request that issued it (the PHP SDK's Certificate::fromArray requires it).
      process: 101,
      product: 'ssl_sectigo_dv',
      validationType: 'DOMAIN_VALIDATION',
      certificateType: 'SINGLE_DOMAIN',
      domainName: 'www.demo-shop.nl',
      startDate: expect.any(String),
      expiryDate: expect.any(String),
      san: ['www.demo-shop.nl', 'demo-shop.nl'],
      status: 'ACTIVE',
      publicKeyAlgorithm: 'RSA',
      publicKeySize: 2048,
      serialNumber: '3F1A09C2D45E6B7788A1C3D5E7F90011',
      csr: expect.stringMatching(/^-----BEGIN CERTIFICATE REQUEST-----\n/),
      certificate: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n/),
      fingerprint: expect.stringMatching(/^[0-9A-F]{64}$/),
    });
  });

  it('answers an issued certificate with its PEM, fingerprint, CSR and process', async () => {
    const res = await call('GET', `/v2/ssl/certificates/${issued.id}?fields=id`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: issued.id,
      process: 77,
      publicKeyAlgorithm: 'ECDSA',
      publicKeySize: 256,
      csr,
      certificate: chain.leaf,
      fingerprint: new X509Certificate(chain.leaf).fingerprint256.replaceAll(':', ''),
    });
    expect(res.body.fingerprint).toMatch(/^[0-9A-F]{64}$/);
  });

  it("answers another customer's certificate like a missing one", async () => {
    const other = await call('GET', `/v2/ssl/certificates/${issued.id}`, { key: otherKey });
    const missing = await call('GET', '/v2/ssl/certificates/999999');
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(other.body.type).toBe('ObjectDoesNotExist');
    expect({ ...other.body, requestId: '', identifier: '', message: '' }).toEqual({
      ...missing.body,
      requestId: '',
      identifier: '',
      message: '',
    });
    expect(other.body.message).toBe(`Certificate '${issued.id}' does not exist.`);
  });

  it('refuses an id that is not a positive integer', async () => {
    const res = await call('GET', '/v2/ssl/certificates/abc');
    expect(res.status).toBe(400);
    expect(res.body.requestId).toEqual(expect.any(String));
  });
});

describe('GET /v2/ssl/certificates/{certificateId}/download', () => {
  const download = (format?: string, key?: string) =>
    call('GET', `/v2/ssl/certificates/${issued.id}/download${format ? `?format=${format}` : ''}`, key ? { key } : {});

  it('CRT is the certificate, CA its issuer, CA_BUNDLE the chain, CSR the CSR as received', async () => {
    const crt = await download('CRT');
    expect(crt.status).toBe(200);
    expect(crt.headers['content-type']).toBe('application/octet-stream');
    expect(crt.headers['content-disposition']).toBe('attachment; filename="www_demo-shop_nl.crt"');
    expect(crt.raw).toBe(chain.leaf.endsWith('\n') ? chain.leaf : `${chain.leaf}\n`);
    const ca = await download('CA');
    expect(new X509Certificate(ca.raw).subject).toBe('CN=Test Intermediate');
    expect(pemBlocks((await download('CA_BUNDLE')).raw)).toHaveLength(1);
    const got = await download('CSR');
    expect(got.headers['content-disposition']).toBe('attachment; filename="www_demo-shop_nl.csr"');
    expect(got.raw.trim()).toBe(csr.trim());
    // The leaf verifies with the issuer the CA file names.
    expect(new X509Certificate(crt.raw).verify(new X509Certificate(ca.raw).publicKey)).toBe(true);
  });

  it('PKCS7 holds the certificate and its chain', async () => {
    const res = await download('PKCS7');
    expect(res.raw).toMatch(/^-----BEGIN PKCS7-----\n/);
    const der = Buffer.from(res.raw.replace(/-----[A-Z0-9 ]+-----|\s/g, ''), 'base64');
    const certs = new x509.X509Certificates(der);
    expect(certs.map((c) => c.subject)).toEqual(['CN=www.demo-shop.nl', 'CN=Test Intermediate']);
  });

  it('ZIP (the default) holds the CRT, the CA bundle, the PKCS#7 and the CSR files, and is stable', async () => {
    const res = await download();
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="www_demo-shop_nl.zip"');
    const files = unzipSync(new Uint8Array(res.bytes as Buffer));
    expect(Object.keys(files).sort()).toEqual([
      'www_demo-shop_nl.ca-bundle',
      'www_demo-shop_nl.crt',
      'www_demo-shop_nl.csr',
      'www_demo-shop_nl.p7b',
    ]);
    expect(Buffer.from(files['www_demo-shop_nl.crt'] as Uint8Array).toString()).toBe((await download('CRT')).raw);
    const again = await download('ZIP');
    expect(again.headers.etag).toBe(res.headers.etag);
    const notModified = await call('GET', `/v2/ssl/certificates/${issued.id}/download`, {
      headers: { 'If-None-Match': res.headers.etag as string },
    });
    expect(notModified.status).toBe(304);
  });

  it('goes out as bytes (isBase64Encoded), never compressed', async () => {
    const event = apiEvent({
      method: 'GET',
      path: `/v2/ssl/certificates/${issued.id}/download`,
      resource: '/v2/ssl/certificates/{certificateId}/download',
      pathParameters: { certificateId: String(issued.id) },
      headers: { 'Accept-Encoding': 'gzip, br' },
    });
    const res = await invoke(downloadHandler, event);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Object.keys(unzipSync(new Uint8Array(res.bytes as Buffer)))).toHaveLength(4);
  });

  it('refuses an unknown format with the formats it knows', async () => {
    const res = await download('PEM');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('CRT, CA, CA_BUNDLE, PKCS7, ZIP, CSR');
  });

  it('offers only the CSR of a certificate loaded without a file, and says so of one without a CSR', async () => {
    const fileless = await testCertificate({ csr });
    const crt = await call('GET', `/v2/ssl/certificates/${fileless.id}/download?format=CRT`);
    expect(crt.status).toBe(400);
    expect(crt.body.type).toBe('ObjectStatusProhibitsOperation');
    expect(crt.body.message).toBe(`Certificate ${fileless.id} has no certificate file to download: its authority delivered none.`);
    expect((await call('GET', `/v2/ssl/certificates/${fileless.id}/download?format=CSR`)).status).toBe(200);
    const bare = await testCertificate({});
    const none = await call('GET', `/v2/ssl/certificates/${bare.id}/download?format=CSR`);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(`Certificate ${bare.id} has no CSR to download.`);
  });

  it("answers another customer's certificate like a missing one, before reading any file", async () => {
    const other = await download('CRT', otherKey);
    expect(other.status).toBe(404);
    expect(other.body.type).toBe('ObjectDoesNotExist');
    const missing = await call('GET', '/v2/ssl/certificates/999999/download?format=CRT');
    expect(missing.status).toBe(404);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await call('HEAD', `/v2/ssl/certificates/${issued.id}/download?format=CRT`);
    expect(res.status).toBe(200);
    expect(res.raw).toBe('');
  });
});
