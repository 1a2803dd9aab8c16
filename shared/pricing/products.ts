/**
 * Product names on price lists and billables. One rule, used by every use case that prices
 * something (see shared/pricing/index.ts):
 *
 * - domains: `domain_<extension>` (`domain_com`, `domain_nl`, `domain_co.uk`), with the actions
 *   CREATE, RENEW, TRANSFER, RESTORE and PRIVACY_PROTECT; the extension is the registry's
 *   (longest-matching) extension, lower-case.
 * - certificates: the certificate product's own name, which starts with `ssl_` (`ssl_sectigo_dv`,
 *   `ssl_sectigo_dv_multi`, `ssl_sectigo_ov`, `ssl_digicert_ev`; see shared/model/certificate.ts),
 *   with the actions REQUEST, RENEW, EXTRA_DOMAIN and EXTRA_WILDCARD.
 *
 * Domain and certificate prices are per 12 months; a billable for a longer period carries the
 * number of years as its quantity.
 */

/** Actions that a domain product is priced for. */
export const domainActions = ['CREATE', 'RENEW', 'TRANSFER', 'RESTORE', 'PRIVACY_PROTECT'] as const;
export type DomainAction = (typeof domainActions)[number];

/** Actions that a certificate product is priced for. */
export const certificateActions = ['REQUEST', 'RENEW', 'EXTRA_DOMAIN', 'EXTRA_WILDCARD'] as const;
export type CertificateAction = (typeof certificateActions)[number];

/** Labels of letters, digits and inner hyphens (at most 63 characters each), dot-separated. */
const extensionPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** The product name of a domain extension: `com` -> `domain_com`, `co.uk` -> `domain_co.uk`. */
export function domainProduct(extension: string): string {
  const ext = extension.toLowerCase().replace(/^\./, '');
  if (!extensionPattern.test(ext)) throw new RangeError(`Not a domain extension: '${extension}'`);
  return `domain_${ext}`;
}
