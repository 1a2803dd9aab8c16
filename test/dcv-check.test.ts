import type { Context, ScheduledEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/dcv-check/handler.ts';
import { checkOpenRequests } from '../shared/certificates/dcv-check.ts';
import { getCertificateOf, listOpenRequests } from '../shared/db/repositories/certificates.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import type { ZoneRecordEntry } from '../shared/model/zone.ts';
import { call } from './support/api.ts';
import { organizationFields, renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';

const shopCsr = makeCsr({ cn: 'www.demo-shop.nl' });
const seconds = (n: number) => new Date(Date.now() + n * 1000);

async function openRenewal(body: Record<string, unknown>, overrides: Parameters<typeof testCertificate>[0] = {}) {
  const cert = await testCertificate(overrides);
  const res = await renew(cert.id, body);
  expect(res.status).toBe(202);
  return { cert, processId: Number(res.headers['x-process-id']), body: res.body };
}

describe('the scheduled DCV check', () => {
  it('finds the DCV records it added to the managed zone and issues the certificate', async () => {
    const { cert, processId } = await openRenewal({ period: 12, csr: shopCsr });
    const report = await checkOpenRequests(seconds(1));
    const process = await getProcess(processId, 'demo');
    expect(process?.status).toBe('COMPLETED');
    const issuedId = (process?.details as { issuedCertificateId: number } | undefined)?.issuedCertificateId as number;
    expect(report.issued).toContain(issuedId);
    expect(await getCertificateOf('demo', issuedId)).toMatchObject({
      product: 'ssl_sectigo_dv',
      commonName: 'www.demo-shop.nl',
      san: ['www.demo-shop.nl', 'demo-shop.nl'],
      status: 'ACTIVE',
      processId,
    });
    const old = await getCertificateOf('demo', cert.id);
    expect(old?.renewedBy).toBe(issuedId);
    expect(old?.renewalProcessId).toBeUndefined();
    expect(await listOpenRequests()).not.toContain(processId);

    const info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body).toMatchObject({ requiresAttention: false, issuedCertificateId: issuedId });
    expect(info.body.certificateId).toBeUndefined();
    expect(info.body.nextAction).toBeUndefined();
    expect(info.body.validations.dcv.map((d: { status: string }) => d.status)).toEqual(['VALIDATED', 'VALIDATED']);
  });

  it('waits for an approval e-mail as long as the sandbox authority says, then issues', async () => {
    const { processId } = await openRenewal({
      period: 12,
      csr: shopCsr,
      dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }],
    });
    await checkOpenRequests(seconds(5));
    let info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body.validations.dcv.map((d: { status: string }) => d.status)).toEqual(['VALIDATED', 'WAITING']);
    expect(info.body.nextAction.steps).toEqual([
      { kind: 'APPROVE_EMAIL', commonName: 'demo-shop.nl', message: 'Approve the validation e-mail sent to postmaster@demo-shop.nl.' },
    ]);
    await checkOpenRequests(seconds(61));
    info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body.validations.dcv.map((d: { status: string }) => d.status)).toEqual(['VALIDATED', 'VALIDATED']);
    expect(info.body.issuedCertificateId).toBeGreaterThan(3000);
  });

  it('flags a DCV record with other contents as ATTENTION and says how to fix it', async () => {
    const { processId, body } = await openRenewal({ period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl', key: 'p256' }), san: [] });
    const entry = body.validations.dcv[0];
    const zone = await getZone('demo-shop.nl');
    if (!zone) throw new Error('demo zone missing');
    // The renewal added its DCV record to the zone's dcvRecords.
    expect(zone.dcvRecords?.some((r) => r.name === entry.dnsRecord)).toBe(true);
    const wrong = (r: ZoneRecordEntry) => (r.name === entry.dnsRecord ? { ...r, content: 'wrong.example' } : r);
    await putZone({ ...zone, dcvRecords: zone.dcvRecords?.map(wrong) });
    await checkOpenRequests(seconds(1));
    const info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body.requiresAttention).toBe(true);
    expect(info.body.validations.dcv[0].status).toBe('ATTENTION');
    expect(info.body.nextAction.steps).toEqual([
      {
        kind: 'FIX_DNS_RECORD',
        commonName: 'www.demo-shop.nl',
        message: `Set the CNAME record ${entry.dnsRecord} to ${entry.dnsContents}; it now has other contents.`,
      },
    ]);
    expect((await getProcess(processId, 'demo'))?.status).toBe('RUNNING');
  });

  it("advances organization checks on the authority's schedule and issues an OV certificate when all pass", async () => {
    const { processId } = await openRenewal(
      {
        period: 12,
        csr: makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, C=NL' }),
        address: 'Keizersgracht 100',
        postalCode: '1015 AA',
        approver: organizationFields.approver,
      },
      { product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com', 'www.demo-secure.com'] },
    );
    await checkOpenRequests(seconds(301));
    let info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body.validations).toMatchObject({
      organization: 'VALIDATED',
      docs: 'VALIDATED',
      voice: 'WAITING',
      agreement: 'VALIDATED',
      whois: 'VALIDATED',
    });
    expect(info.body.nextAction).toBeUndefined();
    await checkOpenRequests(seconds(601));
    info = await call('GET', `/v2/processes/${processId}/info`);
    expect(info.body.validations.voice).toBe('VALIDATED');
    expect(await getCertificateOf('demo', info.body.issuedCertificateId)).toMatchObject({
      product: 'ssl_sectigo_ov',
      organization: 'Demo Hosting B.V.',
    });
  });

  it('issues once when runs overlap', async () => {
    const { processId } = await openRenewal({ period: 12, csr: shopCsr, san: [] });
    const reports = await Promise.all([checkOpenRequests(seconds(1)), checkOpenRequests(seconds(1)), checkOpenRequests(seconds(1))]);
    const issued = (await getProcess(processId, 'demo'))?.details?.issuedCertificateId;
    expect(reports.flatMap((r) => r.issued).filter((id) => id === issued)).toHaveLength(1);
  });

  it('runs as a scheduled function and reports what it did', async () => {
    const report = await handler(
      { 'detail-type': 'Scheduled Event' } as ScheduledEvent,
      { functionName: 'dcv-check', awsRequestId: 'test' } as Context,
    );
    expect(report).toEqual({
      checked: expect.any(Number),
      updated: expect.any(Number),
      issued: expect.any(Array),
      closed: expect.any(Number),
      withdrawn: 0,
      failed: 0,
      // The demo requests were opened by the sandbox authority, which this stage runs.
      otherAuthority: 0,
    });
    // 501 (organization ATTENTION) and 601 (e-mail not answered yet, or answered) stay open or close on their own rules.
    expect(await listOpenRequests()).toContain(501);
  });
});
