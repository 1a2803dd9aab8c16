import { putCertificate } from '../../shared/db/repositories/certificates.ts';
import type { CertificateRecord } from '../../shared/model/certificate.ts';
import { toWireTime } from '../../shared/time.ts';
import { type ApiResponse, call } from './api.ts';

/** Helpers shared by the certificate tests. */

let nextTestId = 9000;
const day = 86_400_000;

/**
 * Puts a certificate of its own for one test (ids from 9001 up, so tests never share one): by
 * default a demo DV certificate for www.demo-shop.nl expiring in 20 days.
 */
export async function testCertificate(overrides: Partial<CertificateRecord> & { expiresInDays?: number } = {}): Promise<CertificateRecord> {
  const { expiresInDays = 20, ...rest } = overrides;
  const now = Date.now();
  const record: CertificateRecord = {
    id: ++nextTestId,
    customer: 'demo',
    product: 'ssl_sectigo_dv',
    commonName: 'www.demo-shop.nl',
    san: ['www.demo-shop.nl', 'demo-shop.nl'],
    status: 'ACTIVE',
    serialNumber: `TEST${nextTestId}`,
    startDate: toWireTime(now - 300 * day),
    expiryDate: toWireTime(now + expiresInDays * day),
    createdDate: toWireTime(now - 300 * day),
    updatedDate: toWireTime(now - 300 * day),
    ...rest,
  };
  await putCertificate(record);
  return record;
}

/** POST /v2/ssl/certificates/{id}/renew through the local gateway. */
export function renew(
  id: number,
  body: Record<string, unknown>,
  options: { quote?: boolean; key?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  return call('POST', `/v2/ssl/certificates/${id}/renew${options.quote ? '?quote=true' : ''}`, {
    body,
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** The organization fields and approver an OV/EV product asks for. */
export const organizationFields = {
  organization: 'Demo Hosting B.V.',
  address: 'Keizersgracht 100',
  postalCode: '1015 AA',
  city: 'Amsterdam',
  approver: { firstName: 'Anna', lastName: 'de Vries', jobTitle: 'Director', email: 'anna@demo-hosting.example', voice: '+31.201234567' },
};
