import { ValidationError, type Violation } from '../errors.ts';
import { type CertificateProduct, type ProductField, productFields } from '../model/certificate.ts';
import type { Mismatch } from '../model/certificate-process.ts';
import { domainNamePattern } from '../schemas/primitives.ts';
import type { DcvChoice } from './authority.ts';
import { CsrRejected, type ParsedCsr } from './csr.ts';
import { checkDcvEntry, wwwCounterpart } from './dcv.ts';
import type { RenewBody } from './renew-request.ts';

/**
 * A renewal request against its product's rules (spec 2.7: "usage per the ssl product metadata")
 * and its CSR: which fields the product takes, which names it certifies, how each is validated.
 * Pure: every violation is collected and reported at once, in the order the request reads.
 */

/** A request that keeps the product's rules: what it certifies, and how. */
export interface CheckedRenewal {
  csr: ParsedCsr;
  commonName: string;
  /** The names priced: the common name, then the SANs. */
  names: string[];
  /** Every name certified: `names`, and the www counterpart a single-domain product adds for free. */
  allNames: string[];
  /** One DCV method per name of `allNames` (DNS where the request chose none). */
  dcv: DcvChoice[];
  /** Where what is certified differs from what the CSR asks. */
  mismatches: Mismatch[];
  /** The organization fields of an OV/EV request, after the CSR fallbacks. */
  subject: Record<string, string>;
}

/** What the checks found, in the order the request reads: what breaks the rules, and where the CSR is overridden. */
interface Findings {
  violations: Violation[];
  mismatches: Mismatch[];
}

/** The names a product's type certifies: the names priced, and the www counterpart it adds for free. */
interface Names {
  names: string[];
  free?: string | undefined;
}

/** CSR subject fields that stand in for an omitted request field (spec 2.7: "overrides the ... of the CSR"). */
const csrFallback: Partial<Record<ProductField, (csr: ParsedCsr) => string | undefined>> = {
  domainName: (csr) => csr.summary.commonName,
  organization: (csr) => csr.summary.subject.organization,
  department: (csr) => csr.summary.subject.organizationalUnit,
  state: (csr) => csr.summary.subject.state,
  city: (csr) => csr.summary.subject.locality,
};

/** The organization fields an OV/EV certificate carries. */
const subjectFields = ['organization', 'department', 'state', 'address', 'postalCode', 'city', 'coc'] as const;

/**
 * Spec 2.7 (contract 3.2): Organization, Department, State and City are plain overrides of the
 * CSR's fields, taken on every product; the ssl product metadata decides only the other fields
 * (a product may still require one, as OV and EV require the organization they validate).
 */
const csrOverrides: ReadonlySet<ProductField> = new Set(['organization', 'department', 'state', 'city']);

const languageOfCountry: Record<string, string> = { NL: 'NL', BE: 'NL', FR: 'FR', DE: 'DE', AT: 'DE', CH: 'DE', LU: 'FR' };

/** Whether a name is a domain name, or a wildcard over one. */
export function isValidName(name: string): boolean {
  return domainNamePattern.test(name.startsWith('*.') ? name.slice(2) : name);
}

/** The error reporting violations: the one violation's text, or a summary over several. */
function invalid(violations: Violation[]): ValidationError {
  return new ValidationError(
    violations.length === 1 ? `${violations[0]?.field}: ${violations[0]?.message}` : "The request breaks the product's rules.",
    violations,
  );
}

/**
 * Checks a renewal against the product and the CSR (or the reason the CSR was refused): throws a
 * ValidationError listing every violation, else answers what the request certifies.
 */
export function checkRenewal(product: CertificateProduct, body: RenewBody, parsed: ParsedCsr | CsrRejected): CheckedRenewal {
  const found: Findings = { violations: [], mismatches: [] };
  const { violations } = found;
  checkProductUse(product, body, violations);
  if (parsed instanceof CsrRejected) throw invalid([...violations, { field: 'csr', message: parsed.message }]);
  const csr = parsed;
  for (const field of product.requiredFields) {
    if (body[field] === undefined && csrFallback[field]?.(csr) === undefined) {
      violations.push({ field, message: `is required for product ${product.product}` });
    }
  }
  // Names: the common name (domainName overrides the CSR's), then SANs per the product's type.
  const commonName = body.domainName ?? csr.summary.commonName;
  if (commonName === undefined) throw invalid([...violations, { field: 'domainName', message: 'is required: the CSR has no common name' }]);
  const { names, free } = certifiedNames(product, body, csr, commonName, found);
  const allNames = free ? [...names, free] : names;
  const dcv = dcvChoices(body, allNames, violations);
  if (violations.length > 0) throw invalid(violations);
  return { csr, commonName, names, allNames, dcv, mismatches: found.mismatches, subject: subjectOf(product, body, csr) };
}

/** The period, and the fields and options the product does not take. */
function checkProductUse(product: CertificateProduct, body: RenewBody, violations: Violation[]): void {
  if (!product.periods.includes(body.period)) {
    violations.push({
      field: 'period',
      message: `must be one of ${product.periods.join(', ')} months for product ${product.product}`,
      value: body.period,
    });
  }
  const used = usedFields(product);
  for (const field of productFields) {
    if (body[field] !== undefined && !used.has(field) && !csrOverrides.has(field)) {
      violations.push({ field, message: `is not used by product ${product.product}` });
    }
  }
  if (body.authKey === true && !product.authKey)
    violations.push({ field: 'authKey', message: `product ${product.product} does not offer auth-key validation` });
}

function usedFields(product: CertificateProduct): Set<ProductField> {
  return new Set<ProductField>([...product.requiredFields, ...product.optionalFields]);
}

/** The names certified around `commonName`, per the product's type, size and wildcard rules. */
function certifiedNames(product: CertificateProduct, body: RenewBody, csr: ParsedCsr, commonName: string, found: Findings): Names {
  const csrName = csr.summary.commonName;
  if (body.domainName === undefined && !isValidName(commonName))
    found.violations.push({ field: 'csr', message: `has common name '${commonName}', which is not a valid domain name` });
  if (body.domainName !== undefined && csrName !== undefined && csrName !== body.domainName) {
    found.mismatches.push({ field: 'domainName', message: `overrides the CSR's common name ${csrName}` });
  }
  const named =
    product.certificateType === 'SINGLE_DOMAIN'
      ? singleDomainNames(product, body, csr, commonName, found)
      : multiDomainNames(product, body, csr, commonName, found);
  if (named.names.length > product.maxDomains) {
    found.violations.push({
      field: 'san',
      message: `holds ${named.names.length} names with the common name; product ${product.product} allows at most ${product.maxDomains}`,
    });
  }
  if (!product.wildcard) checkWildcards(product, body, commonName, found.violations);
  return named;
}

/** A single-domain product certifies the common name, and its www counterpart for free unless SANs were given. */
function singleDomainNames(product: CertificateProduct, body: RenewBody, csr: ParsedCsr, commonName: string, found: Findings): Names {
  if (body.san !== undefined && body.san.length > 0) {
    found.violations.push({ field: 'san', message: `is only for multi-domain products; ${product.product} is single-domain` });
  }
  const free = body.san === undefined ? wwwCounterpart(commonName) : undefined;
  const certified = new Set([commonName, ...(free ? [free] : [])]);
  const dropped = csr.summary.san.filter((n) => !certified.has(n));
  if (dropped.length > 0)
    found.mismatches.push({ field: 'csr', message: `lists names this single-domain product will not certify: ${dropped.join(', ')}` });
  return { names: [commonName], free };
}

/** A multi-domain product certifies the common name and the SANs: the request's, else the CSR's valid ones. */
function multiDomainNames(product: CertificateProduct, body: RenewBody, csr: ParsedCsr, commonName: string, found: Findings): Names {
  const names = [...new Set([commonName, ...(body.san ?? csr.summary.san.filter(isValidName))])];
  body.san?.forEach((n, i) => {
    if (n !== commonName && body.san?.indexOf(n) !== i) found.violations.push({ field: `san[${i}]`, message: 'is listed twice', value: n });
  });
  if (body.san !== undefined) {
    const fromCsr = new Set(csr.summary.san);
    const given = new Set(names);
    const extra = names.filter((n) => !fromCsr.has(n));
    const missing = csr.summary.san.filter((n) => !given.has(n));
    if (extra.length > 0 || missing.length > 0) {
      const parts = [extra.length ? `adds ${extra.join(', ')}` : '', missing.length ? `leaves out ${missing.join(', ')}` : ''];
      found.mismatches.push({ field: 'san', message: `overrides the CSR's names: ${parts.filter((p) => p !== '').join('; ')}` });
    }
  }
  if (csr.summary.san.length > product.maxDomains) {
    found.mismatches.push({
      field: 'csr',
      message: `lists ${csr.summary.san.length} names; product ${product.product} certifies at most ${product.maxDomains}`,
    });
  }
  return { names };
}

/** Wildcard names, for a product that takes none. */
function checkWildcards(product: CertificateProduct, body: RenewBody, commonName: string, violations: Violation[]): void {
  const message = `is a wildcard; product ${product.product} does not support wildcards`;
  if (commonName.startsWith('*.')) violations.push({ field: body.domainName ? 'domainName' : 'csr', message });
  body.san?.forEach((n, i) => {
    if (n.startsWith('*.') && n !== commonName) violations.push({ field: `san[${i}]`, message, value: n });
  });
}

/** The DCV method of each name: one entry per name at most; names without one are validated by DNS. */
function dcvChoices(body: RenewBody, allNames: string[], violations: Violation[]): DcvChoice[] {
  const chosen = new Map<string, DcvChoice>();
  body.dcv?.forEach((entry, i) => {
    const field = `dcv[${i}]`;
    if (!allNames.includes(entry.commonName)) {
      violations.push({
        field: `${field}.commonName`,
        message: `is not a name of this request (${allNames.join(', ')})`,
        value: entry.commonName,
      });
      return;
    }
    if (chosen.has(entry.commonName))
      violations.push({ field: `${field}.commonName`, message: 'has a DCV entry already', value: entry.commonName });
    checkDcvEntry(entry, field, violations);
    chosen.set(entry.commonName, { commonName: entry.commonName, type: entry.type, ...(entry.email ? { email: entry.email } : {}) });
  });
  return allNames.map((n) => chosen.get(n) ?? { commonName: n, type: 'DNS' });
}

/**
 * The organization fields of an OV/EV request: the request's, else the CSR's, and the CSR's country.
 * A DV certificate names domains only: its subject holds none of them, whoever sent them.
 */
function subjectOf(product: CertificateProduct, body: RenewBody, csr: ParsedCsr): Record<string, string> {
  const subject: Record<string, string> = {};
  if (product.validationType === 'DV') return subject;
  const used = usedFields(product);
  for (const field of subjectFields) {
    const value = body[field] ?? csrFallback[field]?.(csr);
    if (value !== undefined && (used.has(field) || csrOverrides.has(field))) subject[field] = value;
  }
  if (csr.summary.subject.country) subject.country = csr.summary.subject.country;
  return subject;
}

/** The language of the authority's e-mails: the request's, else the CSR country's, else English. */
export function languageOf(body: RenewBody, csr: ParsedCsr): string {
  return body.language ?? languageOfCountry[csr.summary.subject.country?.toUpperCase() ?? ''] ?? 'EN';
}
