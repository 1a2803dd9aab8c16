import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/renew/handler.ts';
import { parseCsr } from '../shared/certificates/csr.ts';
import { getCertificateOf } from '../shared/db/repositories/certificates.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { organizationFields, renew, testCertificate } from './support/certificates.ts';
import { makeCsr, pemOf } from './support/csr.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

const shopCsr = makeCsr({ subject: 'CN=www.demo-shop.nl, O=Demo Hosting B.V., C=NL', san: ['www.demo-shop.nl', 'demo-shop.nl'] });

async function hashOf(csr: string): Promise<string> {
  return (await parseCsr(csr)).summary.sha256;
}

function cname(hash: string, name: string, unique: string) {
  return {
    dnsRecord: `_${hash.slice(0, 32)}.${name}`,
    dnsType: 'CNAME',
    dnsContents: `${hash.slice(0, 32)}.${hash.slice(32)}.${unique.toLowerCase()}.sectigo.com`,
  };
}

describe('POST /v2/ssl/certificates/{id}/renew?quote=true', () => {
  it('answers the certificate process-info shape with the quote, the CSR summary and the DCV it would need', async () => {
    const hash = await hashOf(shopCsr);
    const res = await renew(1001, { period: 12, csr: shopCsr, uniqueValue: 'Quote1001' }, { quote: true });
    const step = (name: string) =>
      `Nothing to do for ${name} once the renewal is submitted: the CNAME record ${cname(hash, name, 'Quote1001').dnsRecord} will then be added to the zone demo-shop.nl and checked.`;
    const [wwwStep, apexStep] = [step('www.demo-shop.nl'), step('demo-shop.nl')];
    expect(res.status).toBe(200);
    expect(res.headers['x-process-id']).toBeUndefined();
    expect(res.body).toEqual({
      requiresAttention: false,
      commonName: 'www.demo-shop.nl',
      validations: {
        dcv: [
          {
            commonName: 'www.demo-shop.nl',
            type: 'DNS',
            status: 'WAITING',
            caaRecordStatus: 'VALID',
            ...cname(hash, 'www.demo-shop.nl', 'Quote1001'),
          },
          {
            commonName: 'demo-shop.nl',
            type: 'DNS',
            status: 'WAITING',
            caaRecordStatus: 'VALID',
            ...cname(hash, 'demo-shop.nl', 'Quote1001'),
          },
        ],
      },
      notes: [],
      // A quote writes nothing: its next action says what submitting the renewal will do.
      nextAction: {
        message: [wwwStep, apexStep].join(' '),
        steps: [
          { kind: 'WAIT_FOR_DNS_CHECK', commonName: 'www.demo-shop.nl', message: wwwStep },
          { kind: 'WAIT_FOR_DNS_CHECK', commonName: 'demo-shop.nl', message: apexStep },
        ],
      },
      csrSummary: {
        commonName: 'www.demo-shop.nl',
        san: ['www.demo-shop.nl', 'demo-shop.nl'],
        subject: { organization: 'Demo Hosting B.V.', country: 'NL' },
        keyType: 'RSA',
        keySize: 2048,
        signatureAlgorithm: 'sha256WithRSAEncryption',
        sha256: hash,
      },
      mismatches: [],
      command: 'CertificateRenew',
      quote: {
        total: 1295,
        currency: 'EUR',
        billables: [
          { product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1, amount: 1295, providerName: 'sectigo', refundable: true, total: 1295 },
        ],
      },
    });
    expect((await getCertificateOf('demo', 1001))?.renewalProcessId).toBeUndefined();
  });

  it('prices extra names and wildcards of a multi-domain product per year', async () => {
    const csr = makeCsr({ cn: 'demo-shop.nl' });
    const res = await renew(
      1002,
      { period: 24, csr, san: ['www.demo-shop.nl', 'shop.demo-shop.nl', 'demo-secure.com', 'www.demo-secure.com', '*.demo-shop.nl'] },
      { quote: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.quote).toEqual({
      total: 2 * 2995 + 4 * 1195 + 2 * 5995,
      currency: 'EUR',
      billables: [
        {
          product: 'ssl_sectigo_dv_multi',
          action: 'RENEW',
          quantity: 2,
          amount: 2995,
          providerName: 'sectigo',
          refundable: true,
          total: 5990,
        },
        {
          product: 'ssl_sectigo_dv_multi',
          action: 'EXTRA_DOMAIN',
          quantity: 4,
          amount: 1195,
          providerName: 'sectigo',
          refundable: true,
          total: 4780,
        },
        {
          product: 'ssl_sectigo_dv_multi',
          action: 'EXTRA_WILDCARD',
          quantity: 2,
          amount: 5995,
          providerName: 'sectigo',
          refundable: true,
          total: 11990,
        },
      ],
    });
    expect(res.body.subscription).toEqual({ months: 24, certificateMonths: 12, reissues: 1 });
    expect(res.body.validations.dcv.map((d: { commonName: string; caaRecordStatus: string }) => [d.commonName, d.caaRecordStatus])).toEqual(
      [
        ['demo-shop.nl', 'VALID'],
        ['www.demo-shop.nl', 'VALID'],
        ['shop.demo-shop.nl', 'VALID'],
        ['demo-secure.com', 'EMPTY'],
        ['www.demo-secure.com', 'EMPTY'],
        ['*.demo-shop.nl', 'VALID'],
      ],
    );
    expect(res.body.mismatches).toEqual([
      {
        field: 'san',
        message:
          "overrides the CSR's names: adds demo-shop.nl, www.demo-shop.nl, shop.demo-shop.nl, demo-secure.com, www.demo-secure.com, *.demo-shop.nl",
      },
    ]);
  });

  it('lists what differs between the CSR and the request', async () => {
    const csr = makeCsr({ cn: 'old.demo-shop.nl', san: ['old.demo-shop.nl', 'legacy.demo-shop.nl'] });
    const res = await renew(1001, { period: 12, csr, domainName: 'www.demo-shop.nl' }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.commonName).toBe('www.demo-shop.nl');
    expect(res.body.mismatches).toEqual([
      { field: 'domainName', message: "overrides the CSR's common name old.demo-shop.nl" },
      { field: 'csr', message: 'lists names this single-domain product will not certify: old.demo-shop.nl, legacy.demo-shop.nl' },
    ]);
  });

  it('shows a CAA record that does not allow the authority as ATTENTION with the fix as nextAction', async () => {
    const csr = makeCsr({ cn: 'www.demo-shop.nl' });
    const res = await renew(
      1001,
      { product: 'ssl_digicert_ev', period: 12, csr, ...organizationFields, coc: '12345678', saEmail: 'anna@demo-hosting.example' },
      { quote: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.requiresAttention).toBe(true);
    expect(res.body.oneTimeLink).toBeUndefined();
    expect(res.body.validations).toMatchObject({
      organization: 'WAITING',
      docs: 'WAITING',
      voice: 'WAITING',
      agreement: 'WAITING',
      whois: 'WAITING',
    });
    expect(res.body.validations.dcv).toEqual([
      expect.objectContaining({
        commonName: 'www.demo-shop.nl',
        type: 'DNS',
        dnsType: 'TXT',
        status: 'ATTENTION',
        caaRecordStatus: 'INVALID',
        riskStatus: 'WAITING',
      }),
    ]);
    expect(res.body.nextAction.steps[0]).toEqual({
      kind: 'FIX_CAA',
      commonName: 'www.demo-shop.nl',
      message: 'Allow the certificate authority in the CAA records of www.demo-shop.nl (status INVALID).',
    });
    expect(res.body.quote.billables).toEqual([
      { product: 'ssl_digicert_ev', action: 'RENEW', quantity: 1, amount: 14900, providerName: 'digicert', refundable: true, total: 14900 },
    ]);
  });

  it('leaves out the free www name when san is an empty list', async () => {
    const res = await renew(1001, { period: 12, csr: shopCsr, san: [] }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.validations.dcv.map((d: { commonName: string }) => d.commonName)).toEqual(['www.demo-shop.nl']);
  });
});

describe('POST /v2/ssl/certificates/{id}/renew', () => {
  it('opens a renewal process: 202, x-process-id, the process-info shape, DCV records in the managed zone', async () => {
    const cert = await testCertificate();
    const hash = await hashOf(shopCsr);
    const res = await renew(cert.id, { period: 12, csr: shopCsr, uniqueValue: 'Renew9001' });
    expect(res.status).toBe(202);
    const processId = Number(res.headers['x-process-id']);
    expect(processId).toBeGreaterThan(1000);
    expect(res.body).toMatchObject({
      requiresAttention: false,
      commonName: 'www.demo-shop.nl',
      validations: {
        dcv: [
          {
            commonName: 'www.demo-shop.nl',
            type: 'DNS',
            status: 'WAITING',
            caaRecordStatus: 'VALID',
            ...cname(hash, 'www.demo-shop.nl', 'Renew9001'),
          },
          {
            commonName: 'demo-shop.nl',
            type: 'DNS',
            status: 'WAITING',
            caaRecordStatus: 'VALID',
            ...cname(hash, 'demo-shop.nl', 'Renew9001'),
          },
        ],
      },
      mismatches: [],
    });
    expect(res.body.quote).toBeUndefined();

    const process = await getProcess(processId, 'demo');
    expect(process).toMatchObject({
      type: 'certificate',
      action: 'renew',
      identifier: 'www.demo-shop.nl',
      status: 'RUNNING',
      user: 'alice',
      billables: [
        { product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1, amount: 1295, providerName: 'sectigo', refundable: true, total: 1295 },
      ],
    });
    expect((await getCertificateOf('demo', cert.id))?.renewalProcessId).toBe(processId);

    const info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual(res.body);

    const zone = await call('GET', '/v2/domains/demo-shop.nl/zone');
    expect(zone.status).toBe(200);
    const dcvRecords = zone.body.records.filter((r: { name: string }) => r.name.startsWith(`_${hash.slice(0, 32)}`));
    expect(dcvRecords).toEqual([
      { name: `_${hash.slice(0, 32)}.www.demo-shop.nl`, type: 'CNAME', content: cname(hash, 'x', 'Renew9001').dnsContents, ttl: 300 },
      { name: `_${hash.slice(0, 32)}.demo-shop.nl`, type: 'CNAME', content: cname(hash, 'x', 'Renew9001').dnsContents, ttl: 300 },
    ]);
  });

  it('refuses a second renewal while one is open', async () => {
    const cert = await testCertificate();
    expect((await renew(cert.id, { period: 12, csr: shopCsr })).status).toBe(202);
    const again = await renew(cert.id, { period: 12, csr: shopCsr });
    expect(again.status).toBe(400);
    expect(again.body.type).toBe('ObjectStatusProhibitsOperation');
    expect(again.body.message).toMatch(
      new RegExp(`^Certificate ${cert.id} has an open renewal \\(process \\d+\\); one renewal at a time\\.$`),
    );
  });

  it('lets exactly one of concurrent renewals through', async () => {
    const cert = await testCertificate();
    const results = await Promise.all(Array.from({ length: 5 }, () => renew(cert.id, { period: 12, csr: shopCsr })));
    expect(results.map((r) => r.status).sort()).toEqual([202, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.type).toBe('ObjectStatusProhibitsOperation');
  });

  it('replays the answer for a repeated Idempotency-Key instead of refusing it', async () => {
    const cert = await testCertificate();
    const headers = { 'Idempotency-Key': `renew-${cert.id}` };
    const first = await renew(cert.id, { period: 12, csr: shopCsr }, { headers });
    const second = await renew(cert.id, { period: 12, csr: shopCsr }, { headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers['x-process-id']).toBe(first.headers['x-process-id']);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const changed = await renew(cert.id, { period: 24, csr: shopCsr }, { headers });
    expect(changed.status).toBe(400);
    expect(changed.body.type).toBe('ValidationError');
  });

  it('issues at once through auth key when every name is validated in a managed zone', async () => {
    const cert = await testCertificate();
    const res = await renew(cert.id, { period: 24, csr: shopCsr, authKey: true });
    expect(res.status).toBe(202);
    expect(res.body.certificateId).toBeGreaterThan(3000);
    expect(res.body.requiresAttention).toBe(false);
    expect(res.body.nextAction).toBeUndefined();
    expect(res.body.validations.dcv.map((d: { status: string }) => d.status)).toEqual(['VALIDATED', 'VALIDATED']);
    const issued = await getCertificateOf('demo', res.body.certificateId);
    expect(issued).toMatchObject({
      product: 'ssl_sectigo_dv',
      commonName: 'www.demo-shop.nl',
      san: ['www.demo-shop.nl', 'demo-shop.nl'],
      status: 'ACTIVE',
      keyType: 'RSA-2048',
    });
    expect(issued?.subscriptionEndDate).toBeDefined();
    expect((await getProcess(Number(res.headers['x-process-id']), 'demo'))?.status).toBe('COMPLETED');
    expect((await getCertificateOf('demo', cert.id))?.renewedBy).toBe(res.body.certificateId);
    const again = await renew(cert.id, { period: 12, csr: shopCsr });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`Certificate ${cert.id} was already renewed by certificate ${res.body.certificateId}.`);
  });

  it('does not issue at once when a name is validated outside the managed zones', async () => {
    const cert = await testCertificate();
    const res = await renew(cert.id, {
      period: 12,
      csr: shopCsr,
      authKey: true,
      dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'admin@demo-shop.nl' }],
    });
    expect(res.status).toBe(202);
    expect(res.body.certificateId).toBeUndefined();
    expect(res.body.validations.dcv[1]).toEqual({
      commonName: 'demo-shop.nl',
      type: 'EMAIL',
      email: 'admin@demo-shop.nl',
      status: 'WAITING',
      caaRecordStatus: 'VALID',
    });
    expect(res.body.nextAction.steps[1]).toEqual({
      kind: 'APPROVE_EMAIL',
      commonName: 'demo-shop.nl',
      message: 'Approve the validation e-mail sent to admin@demo-shop.nl.',
    });
  });

  it('renews an OV certificate with the organization checks of the product', async () => {
    const csr = makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, ST=Noord-Holland, C=NL' });
    const res = await renew(1003, {
      period: 12,
      csr,
      address: 'Keizersgracht 100',
      postalCode: '1015 AA',
      approver: organizationFields.approver,
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      requiresAttention: false,
      commonName: 'demo-secure.com',
      validations: { organization: 'WAITING', docs: 'WAITING', voice: 'WAITING', agreement: 'WAITING', whois: 'WAITING' },
    });
    expect(res.body.validations.dcv.map((d: { commonName: string; caaRecordStatus: string }) => [d.commonName, d.caaRecordStatus])).toEqual(
      [
        ['demo-secure.com', 'EMPTY'],
        ['www.demo-secure.com', 'EMPTY'],
      ],
    );
    expect(res.body.nextAction.steps.at(-1)).toEqual({
      kind: 'WAIT_FOR_AUTHORITY',
      message: 'The certificate authority is checking: organization, docs, voice, agreement, whois.',
    });
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.details).toMatchObject({
      subject: {
        organization: 'Demo Hosting B.V.',
        state: 'Noord-Holland',
        address: 'Keizersgracht 100',
        postalCode: '1015 AA',
        city: 'Amsterdam',
        country: 'NL',
      },
      language: 'NL',
    });
  });

  it('words the next action of a quote for what submitting will do: it claims no record, e-mail or check', async () => {
    const csr = makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, C=NL' });
    const dcv = [
      { commonName: 'demo-secure.com', type: 'EMAIL', email: 'admin@demo-secure.com' },
      { commonName: 'www.demo-secure.com', type: 'FILE' },
    ];
    const certificate = await testCertificate({ product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com'] });
    const ov = await renew(certificate.id, { period: 12, csr, ...organizationFields, dcv }, { quote: true });
    expect(ov.status).toBe(200);
    const file = ov.body.validations.dcv[1].fileLocation;
    const steps = [
      {
        kind: 'APPROVE_EMAIL',
        commonName: 'demo-secure.com',
        message: 'Once the renewal is submitted, approve the validation e-mail that will then be sent to admin@demo-secure.com.',
      },
      {
        kind: 'PLACE_FILE',
        commonName: 'www.demo-secure.com',
        message: `Once the renewal is submitted, publish ${file} with the fileContents its answer gives.`,
      },
      {
        kind: 'WAIT_FOR_AUTHORITY',
        message: 'Once the renewal is submitted, the certificate authority checks: organization, docs, voice, agreement, whois.',
      },
    ];
    expect(ov.body.nextAction).toEqual({ message: steps.map((step) => step.message).join(' '), steps });

    const elsewhere = await testCertificate({ commonName: 'www.elsewhere.example', san: ['www.elsewhere.example'] });
    const dv = await renew(elsewhere.id, { period: 12, csr: makeCsr({ subject: 'CN=www.elsewhere.example' }) }, { quote: true });
    expect(dv.status).toBe(200);
    expect(dv.body.nextAction.steps).toEqual(
      dv.body.validations.dcv.map((entry: { commonName: string; dnsRecord: string }) => ({
        kind: 'CREATE_DNS_RECORD',
        commonName: entry.commonName,
        message: `Once the renewal is submitted, create the CNAME record ${entry.dnsRecord} with the contents its answer gives.`,
      })),
    );
  });

  it('works through the handler directly with an API Gateway event', async () => {
    const cert = await testCertificate();
    const res = await invoke(
      handler,
      apiEvent({
        method: 'POST',
        path: `/v2/ssl/certificates/${cert.id}/renew`,
        resource: '/v2/ssl/certificates/{certificateId}/renew',
        pathParameters: { certificateId: String(cert.id) },
        query: { quote: 'true' },
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ period: 12, csr: shopCsr }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.quote.total).toBe(1295);
  });
});

describe('renewal refusals', () => {
  it("answers 404 for another customer's certificate and for an unknown one", async () => {
    const foreign = await renew(2001, { period: 12, csr: shopCsr });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Certificate '2001' does not exist.",
      objectType: 'Certificate',
      identifier: '2001',
      requestId: foreign.headers['x-request-id'],
    });
    expect((await renew(1001, { period: 12, csr: shopCsr }, { key: otherKey })).status).toBe(404);
    expect((await renew(987654, { period: 12, csr: shopCsr })).status).toBe(404);
  });

  it('refuses a certificate outside its renewal window, expired, or not active', async () => {
    const early = await testCertificate({ expiresInDays: 200 });
    const res = await renew(early.id, { period: 12, csr: shopCsr });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ObjectStatusProhibitsOperation');
    expect(res.body.message).toMatch(
      new RegExp(`^Certificate ${early.id} expires on .+; it can be renewed from .+ \\(90 days before expiry\\)\\.$`),
    );

    const expired = await testCertificate({ expiresInDays: -1 });
    expect((await renew(expired.id, { period: 12, csr: shopCsr })).body.message).toMatch(
      /expired on .+; request a new certificate instead\.$/,
    );
    const revoked = await testCertificate({ status: 'REVOKED' });
    const r = await renew(revoked.id, { period: 12, csr: shopCsr }, { quote: true });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`Certificate ${revoked.id} is revoked; only active certificates can be renewed.`);
  });

  it.each([
    [
      'an RSA key below 2048 bits',
      makeCsr({ key: 'rsa1024', cn: 'www.demo-shop.nl' }),
      'has an RSA key of 1024 bits; at least 2048 bits are required',
    ],
    [
      'an EC key below P-256',
      makeCsr({ key: 'p192', cn: 'www.demo-shop.nl' }),
      'has an EC key on curve prime192v1; use P-256, P-384 or P-521',
    ],
    [
      'a broken signature',
      makeCsr({ cn: 'www.demo-shop.nl', breakSignature: true }),
      'has a signature that does not verify against its own public key',
    ],
    ['text that is no CSR', 'hello', 'is not a PEM encoded PKCS#10 certificate signing request'],
    [
      'a signed part changed after signing',
      makeCsr({ cn: 'www.demo-shop.nl', tamperInfo: true }),
      'has a signature that does not verify against its own public key',
    ],
    [
      'an RSA signature stated as ECDSA',
      makeCsr({ cn: 'www.demo-shop.nl', statedAlgorithm: '1.2.840.10045.4.3.2' }),
      'has a signature that does not verify against its own public key',
    ],
    ['random bytes in PEM armour', pemOf(randomBytes(400)), 'is not a PEM encoded PKCS#10 certificate signing request'],
    [
      'a signed CSR with a malformed extension request',
      makeCsr({ cn: 'www.demo-shop.nl', extensionRequestValue: new Uint8Array([0x02, 0x01, 0x05]) }),
      'is not a PEM encoded PKCS#10 certificate signing request',
    ],
  ])('answers 400 on csr for %s', async (_name, csr, message) => {
    const res = await renew(1001, { period: 12, csr }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ValidationError',
      message: `csr: ${message}`,
      violations: [{ field: 'csr', message }],
      requestId: res.headers['x-request-id'],
    });
  });

  it('accepts an EC P-256 CSR', async () => {
    const res = await renew(1001, { period: 12, csr: makeCsr({ key: 'p256', cn: 'www.demo-shop.nl' }) }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.csrSummary).toMatchObject({ keyType: 'EC', keySize: 256, curve: 'P-256' });
  });

  it('accepts an RSASSA-PSS CSR', async () => {
    const res = await renew(
      1001,
      { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl', pss: { hash: 'sha256', saltLength: 32 } }) },
      { quote: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.csrSummary).toMatchObject({ keyType: 'RSA', keySize: 2048, signatureAlgorithm: 'rsassaPss-SHA256' });
  });

  it('takes Organization, Department, State and City on every product as plain CSR overrides (spec 2.7): a DV renewal with them', async () => {
    const cert = await testCertificate();
    const overrides = { organization: 'Demo Hosting B.V.', department: 'IT', state: 'Noord-Holland', city: 'Amsterdam' };
    const res = await renew(cert.id, { period: 12, csr: shopCsr, ...overrides });
    expect(res.status).toBe(202);
    expect(res.body.commonName).toBe('www.demo-shop.nl');
    // A DV certificate names domains only: none of them goes into its subject.
    expect((await getProcess(Number(res.headers['x-process-id']), 'demo'))?.details).toMatchObject({ subject: {} });
  });

  it('puts the overrides into an OV subject over the CSR fields, and still requires what the product requires', async () => {
    const csr = makeCsr({ subject: 'CN=demo-secure.com, O=Old Name B.V., L=Utrecht, C=NL' });
    const cert = await testCertificate({ product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com'] });
    const fields = { address: 'Keizersgracht 100', postalCode: '1015 AA', approver: organizationFields.approver };
    const bare = makeCsr({ subject: 'CN=demo-secure.com, C=NL' });
    const missing = await renew(cert.id, { period: 12, csr: bare, ...fields }, { quote: true });
    expect(missing.body.violations).toEqual([
      { field: 'organization', message: 'is required for product ssl_sectigo_ov' },
      { field: 'city', message: 'is required for product ssl_sectigo_ov' },
    ]);
    const res = await renew(cert.id, { period: 12, csr, ...fields, organization: 'Demo Hosting B.V.', city: 'Amsterdam', state: 'NH' });
    expect(res.status).toBe(202);
    expect((await getProcess(Number(res.headers['x-process-id']), 'demo'))?.details).toMatchObject({
      subject: { organization: 'Demo Hosting B.V.', state: 'NH', city: 'Amsterdam', address: 'Keizersgracht 100', country: 'NL' },
    });
  });

  it('refuses SANs on a single-domain product, a period the product lacks and fields it does not take, all at once', async () => {
    const res = await renew(1001, { period: 6, csr: shopCsr, san: ['shop.demo-shop.nl'], address: 'X', coc: '123' }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.violations).toEqual([
      { field: 'period', message: 'must be one of 12, 24, 36 months for product ssl_sectigo_dv', value: 6 },
      { field: 'address', message: 'is not used by product ssl_sectigo_dv' },
      { field: 'coc', message: 'is not used by product ssl_sectigo_dv' },
      { field: 'san', message: 'is only for multi-domain products; ssl_sectigo_dv is single-domain' },
    ]);
  });

  it('refuses more names than the product allows and wildcards where it has none', async () => {
    const csr = makeCsr({ cn: 'demo-shop.nl' });
    const san = Array.from({ length: 10 }, (_, i) => `n${i}.demo-shop.nl`);
    const res = await renew(
      1001,
      {
        product: 'ssl_digicert_ev',
        period: 12,
        csr,
        san: [...san, '*.demo-shop.nl'],
        ...organizationFields,
        coc: '1',
        saEmail: 'a@demo-shop.nl',
      },
      { quote: true },
    );
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([
      { field: 'san', message: 'holds 12 names with the common name; product ssl_digicert_ev allows at most 10' },
      { field: 'san[10]', message: 'is a wildcard; product ssl_digicert_ev does not support wildcards', value: '*.demo-shop.nl' },
    ]);
  });

  it('names the fields an OV product requires', async () => {
    const ov = await testCertificate({
      product: 'ssl_sectigo_ov',
      commonName: 'demo-secure.com',
      san: ['demo-secure.com', 'www.demo-secure.com'],
    });
    const csr = makeCsr({ cn: 'demo-secure.com' });
    const res = await renew(ov.id, { period: 12, csr }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([
      { field: 'organization', message: 'is required for product ssl_sectigo_ov' },
      { field: 'address', message: 'is required for product ssl_sectigo_ov' },
      { field: 'postalCode', message: 'is required for product ssl_sectigo_ov' },
      { field: 'city', message: 'is required for product ssl_sectigo_ov' },
      { field: 'approver', message: 'is required for product ssl_sectigo_ov' },
    ]);
  });

  it('checks every DCV entry: a name of the request, EMAIL with an approver address, no FILE for wildcards', async () => {
    const csr = makeCsr({ cn: 'demo-shop.nl' });
    const res = await renew(
      1002,
      {
        period: 12,
        csr,
        san: ['*.demo-shop.nl', 'www.demo-shop.nl'],
        dcv: [
          { commonName: 'other.example', type: 'DNS' },
          { commonName: 'demo-shop.nl', type: 'EMAIL' },
          { commonName: 'www.demo-shop.nl', type: 'EMAIL', email: 'info@demo-shop.nl' },
          { commonName: '*.demo-shop.nl', type: 'FILE' },
          { commonName: 'demo-shop.nl', type: 'DNS', email: 'admin@demo-shop.nl' },
        ],
      },
      { quote: true },
    );
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([
      {
        field: 'dcv[0].commonName',
        message: 'is not a name of this request (demo-shop.nl, *.demo-shop.nl, www.demo-shop.nl)',
        value: 'other.example',
      },
      { field: 'dcv[1].email', message: 'is required for EMAIL validation' },
      {
        field: 'dcv[2].email',
        message: 'must be admin@, administrator@, hostmaster@, postmaster@, webmaster@ at www.demo-shop.nl or a parent domain',
        value: 'info@demo-shop.nl',
      },
      { field: 'dcv[3].type', message: 'FILE validation is not possible for a wildcard name' },
      { field: 'dcv[4].commonName', message: 'has a DCV entry already', value: 'demo-shop.nl' },
      { field: 'dcv[4].email', message: 'is only for EMAIL validation' },
    ]);
  });

  it('accepts the approver mailbox of a parent domain and FILE validation', async () => {
    const res = await renew(
      1001,
      {
        period: 12,
        csr: shopCsr,
        dcv: [
          { commonName: 'www.demo-shop.nl', type: 'EMAIL', email: 'Hostmaster@Demo-Shop.nl' },
          { commonName: 'demo-shop.nl', type: 'FILE' },
        ],
      },
      { quote: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.validations.dcv[0]).toEqual({
      commonName: 'www.demo-shop.nl',
      type: 'EMAIL',
      email: 'hostmaster@demo-shop.nl',
      status: 'WAITING',
      caaRecordStatus: 'VALID',
    });
    expect(res.body.validations.dcv[1]).toMatchObject({
      commonName: 'demo-shop.nl',
      type: 'FILE',
      fileLocation: expect.stringMatching(/^http:\/\/demo-shop\.nl\/\.well-known\/pki-validation\/[0-9A-F]{32}\.txt$/),
    });
  });

  it('refuses auth key on a product without it, an unknown product, and a CSR without a usable common name', async () => {
    const cert = await testCertificate({
      product: 'ssl_sectigo_ov',
      commonName: 'demo-secure.com',
      san: ['demo-secure.com', 'www.demo-secure.com'],
    });
    const ov = await renew(cert.id, { period: 12, csr: shopCsr, authKey: true, ...organizationFields }, { quote: true });
    expect(ov.body.violations).toEqual([{ field: 'authKey', message: 'product ssl_sectigo_ov does not offer auth-key validation' }]);
    const unknown = await renew(1001, { product: 'ssl_nosuch', period: 12, csr: shopCsr }, { quote: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Product', identifier: 'ssl_nosuch' });
    const nameless = await renew(1001, { period: 12, csr: makeCsr({ subject: 'O=Nameless' }) }, { quote: true });
    expect(nameless.body.violations).toEqual([{ field: 'domainName', message: 'is required: the CSR has no common name' }]);
    const bad = await renew(1001, { period: 12, csr: makeCsr({ cn: 'not a name' }) }, { quote: true });
    expect(bad.body.violations).toEqual([{ field: 'csr', message: "has common name 'not a name', which is not a valid domain name" }]);
  });

  it('answers the contract errors for malformed requests', async () => {
    const unknownKey = await renew(1001, { period: 12, csr: shopCsr, color: 'blue' });
    expect(unknownKey.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: 'color' });
    const shapes = await renew(1001, { period: 'twelve', uniqueValue: 'not-alnum!', language: 'english', san: 'x' });
    expect(shapes.status).toBe(400);
    expect(shapes.body.type).toBe('ConstraintViolationException');
    expect(shapes.body.violations.map((v: { field: string }) => v.field)).toEqual(['period', 'csr', 'san', 'language', 'uniqueValue']);
    expect(shapes.body.violations.find((v: { field: string }) => v.field === 'csr')).toEqual({ field: 'csr', message: 'is required' });
    const path = await call('POST', '/v2/ssl/certificates/abc/renew', { body: { period: 12, csr: shopCsr } });
    expect(path.body.violations).toEqual([{ field: 'certificateId', message: 'must be a positive integer', value: 'abc' }]);
  });
});

describe('CSR text (RFC 7468, read line by line)', () => {
  const csrViolation = { field: 'csr', message: 'is not a PEM encoded PKCS#10 certificate signing request' };

  it('answers the header-continuation CSR that made the old PEM pattern backtrack exponentially with a plain 400', async () => {
    // A BEGIN line, a header, 29 continuation lines and a character no line allows: 2 to 14 s of
    // backtracking for the pattern csr.ts used to have, each extra line doubling it.
    const hostile = ['-----BEGIN CERTIFICATE REQUEST-----', 'a: b', ...Array(29).fill(' c: d'), '!'].join('\n');
    for (const csr of [hostile, `${hostile}\n`.repeat(40)]) {
      const res = await renew(1001, { period: 12, csr }, { quote: true });
      expect(res.body).toEqual({
        type: 'ValidationError',
        message: `csr: ${csrViolation.message}`,
        violations: [csrViolation],
        requestId: res.headers['x-request-id'],
      });
    }
  });

  it('refuses a PEM block with RFC 1421 headers, which RFC 7468 does not allow', async () => {
    const lines = shopCsr.trim().split('\n');
    const withHeaders = [lines[0], 'Proc-Type: 4,ENCRYPTED', 'Content-Domain: RFC822', '', ...lines.slice(1)].join('\n');
    const res = await renew(1001, { period: 12, csr: withHeaders }, { quote: true });
    expect({ status: res.status, violations: res.body.violations }).toEqual({ status: 400, violations: [csrViolation] });
    const plain = await renew(1001, { period: 12, csr: shopCsr }, { quote: true });
    expect(plain.status).toBe(200);
  });

  it('reads a PEM block with blank lines, indentation and trailing spaces (the lax reading of RFC 7468)', async () => {
    const lines = shopCsr.trim().split('\n');
    const lax = [`  ${lines[0]}`, '', ...lines.slice(1, -1).map((l) => `\t${l}  `), '', `${lines.at(-1)} `].join('\r\n');
    const res = await renew(1001, { period: 12, csr: lax }, { quote: true });
    expect({ status: res.status, commonName: res.body.commonName }).toEqual({ status: 200, commonName: 'www.demo-shop.nl' });
  });

  it('refuses a block whose END label differs from its BEGIN label, or that has no END line', async () => {
    const lines = shopCsr.trim().split('\n');
    for (const csr of [[...lines.slice(0, -1), '-----END CERTIFICATE-----'].join('\n'), lines.slice(0, -1).join('\n')]) {
      const res = await renew(1001, { period: 12, csr }, { quote: true });
      expect({ status: res.status, violations: res.body.violations }).toEqual({ status: 400, violations: [csrViolation] });
    }
  });
});

describe('ownership before cost', () => {
  /** A name of 120 labels under the domain, about as deep as a SAN can be (253 characters). */
  const deepName = (n: number) => `n${n}.${'a.'.repeat(117)}demo-shop.nl`;
  const deepSans = Array.from({ length: 49 }, (_, n) => deepName(n));
  const ordinarySans = ['shop.demo-shop.nl', 'demo-shop.nl', 'www.demo-shop.nl'];

  /** Items the request read from the table, counted at the SDK client. */
  async function itemsRead(id: number, san: string[], quote = true): Promise<{ status: number; items: number; calls: string[] }> {
    const { result, details } = await recordTableCalls(() => renew(id, { period: 12, csr: shopCsr, san }, { quote }));
    const own = details.filter((d) => !d.partitions.some((p) => p.startsWith('APIKEY#')));
    return { status: result.status, items: own.reduce((n, d) => n + d.itemsRead, 0), calls: own.map((d) => d.command) };
  }

  it("reads the certificate alone before answering 404 for another customer's, whatever the SANs", async () => {
    expect(deepSans[0]?.length).toBeLessThanOrEqual(253);
    for (const quote of [true, false]) {
      const deep = await itemsRead(2001, deepSans, quote);
      const ordinary = await itemsRead(2001, ordinarySans, quote);
      const missing = await itemsRead(987654, deepSans, quote);
      expect(deep).toEqual({ status: 404, items: 1, calls: ['QueryCommand'] });
      expect(ordinary).toEqual(deep);
      expect(missing).toEqual({ status: 404, items: 0, calls: ['QueryCommand'] });
    }
  });

  it('reads a bounded set of zones for 49 deep SANs of its own certificate: their registrable domain and 4 levels below', async () => {
    const cert = await testCertificate({ product: 'ssl_sectigo_dv_multi', commonName: 'www.demo-shop.nl', san: ['www.demo-shop.nl'] });
    const ordinary = await itemsRead(cert.id, ordinarySans); // the first also caches the product and its authority
    const deep = await itemsRead(cert.id, deepSans);
    expect({ status: deep.status, calls: deep.calls }).toEqual({
      status: 200,
      // The certificate; the counters and zone headers; the product's prices; the records of the
      // one managed zone found (demo-shop.nl).
      calls: ['QueryCommand', 'BatchGetItemCommand', 'QueryCommand', 'QueryCommand'],
    });
    expect(ordinary.status).toBe(200);
    // The certificate, the prices, the zone's records and two id counters in both; the zone names: demo-shop.nl,
    // www.demo-shop.nl and shop.demo-shop.nl for the ordinary SANs; demo-shop.nl, www.demo-shop.nl
    // (the common name) and a., a.a., a.a.a., a.a.a.a.demo-shop.nl for the deep ones, 120 labels each.
    expect(deep.items - ordinary.items).toBe(6 - 3);
  });
});

describe('acknowledged billables out of range', () => {
  it.each([
    ['quantity', 1e308],
    ['quantity', Number.MAX_SAFE_INTEGER + 1],
    ['amount', 1e308],
    ['total', 1e308],
  ])('refuses %s %d with 400 and the field named, not 500', async (field, value) => {
    const cert = await testCertificate();
    const res = await renew(cert.id, {
      period: 12,
      csr: shopCsr,
      billables: [{ product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1, [field]: value }],
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.message).toContain(`billables[0].${field}: must be at most`);
  });
});
