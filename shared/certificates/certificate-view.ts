import * as v from 'valibot';
import { CertificateStatus } from '../model/certificate.ts';
import { WireTime } from '../schemas/primitives.ts';
import { validationTypeNames } from './validation-type.ts';

/**
 * The certificate as `GET /v2/ssl/certificates/{certificateId}` answers it: the fields the official
 * SDKs read (the TypeScript SDK's `Certificate`, the PHP SDK's `Certificate::fromArray`). Kept apart
 * from the use case (certificate-info.ts), so that the function bundles none of it.
 */
export const CertificateView = v.strictObject({
  id: v.number(),
  /** The process that issued it; absent only for a certificate a dataset loads without a processId. */
  process: v.optional(v.number()),
  product: v.string(),
  validationType: v.picklist(Object.values(validationTypeNames)),
  certificateType: v.picklist(['SINGLE_DOMAIN', 'MULTI_DOMAIN']),
  domainName: v.string(),
  organization: v.optional(v.string()),
  startDate: WireTime,
  expiryDate: WireTime,
  subscriptionEndDate: v.optional(WireTime),
  san: v.array(v.string()),
  status: CertificateStatus,
  publicKeyAlgorithm: v.optional(v.picklist(['RSA', 'ECDSA'])),
  publicKeySize: v.optional(v.number()),
  /** Extension: the serial number the authority gave it (hex). */
  serialNumber: v.string(),
  /** The CSR it was requested with (PEM), when the service holds it. */
  csr: v.optional(v.string()),
  /** The certificate itself (PEM), when the authority delivered a file. */
  certificate: v.optional(v.string()),
  /** SHA-256 of the certificate's DER, upper-case hex, when the authority delivered a file. */
  fingerprint: v.optional(v.string()),
  /** Extension: the certificate that replaced it, once a renewal completed. */
  renewedBy: v.optional(v.number()),
});
export type CertificateView = v.InferOutput<typeof CertificateView>;

/** A listed certificate with only the fields named in `fields` (every field when it is not given). */
export const CertificateSelection = v.pipe(
  v.partial(CertificateView),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);

/** One page of `GET /v2/ssl/certificates` (the SDKs' Page and Pagination models). */
export const CertificatePage = v.strictObject({
  entities: v.array(v.union([CertificateView, CertificateSelection])),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many certificates match; left out with `total=false`.'))),
  }),
});
export type CertificatePage = v.InferOutput<typeof CertificatePage>;

/** The download formats of `GET /v2/ssl/certificates/{certificateId}/download` (the SDKs' list; ZIP by default). */
export const downloadFormats = ['CRT', 'CA', 'CA_BUNDLE', 'PKCS7', 'ZIP', 'CSR'] as const;
export type DownloadFormat = (typeof downloadFormats)[number];

/** An example certificate (demo certificate 1001), for the API description. */
export const certificate1001: CertificateView = {
  id: 1001,
  product: 'ssl_sectigo_dv',
  validationType: 'DOMAIN_VALIDATION',
  certificateType: 'SINGLE_DOMAIN',
  domainName: 'www.demo-shop.nl',
  startDate: '2025-12-20T10:00:00Z',
  expiryDate: '2026-12-20T10:00:00Z',
  san: ['www.demo-shop.nl', 'demo-shop.nl'],
  status: 'ACTIVE',
  publicKeyAlgorithm: 'RSA',
  publicKeySize: 2048,
  serialNumber: '3F1A09C2D45E6B7788A1C3D5E7F90011',
};
