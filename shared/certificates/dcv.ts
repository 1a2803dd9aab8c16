import { createHash } from 'node:crypto';
import type { Violation } from '../errors.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import type { DcvState, DcvType } from '../model/certificate-process.ts';
import type { DcvRequest } from './renew-request.ts';

/**
 * Domain control validation values (domain primer, "DCV"): computed deterministically from the
 * CSR's SHA-256 and the request's unique value, so the same request always asks for the same
 * record, file or mailbox, and a quote shows exactly what the request will ask for.
 */

/** The mailbox names an authority may write to for EMAIL validation (CA/B Forum "constructed" addresses). */
export const approverMailboxes = ['admin', 'administrator', 'hostmaster', 'postmaster', 'webmaster'] as const;

/** The name whose control is proven: a wildcard `*.example.com` is validated on `example.com`. */
export function dcvBase(name: string): string {
  return name.startsWith('*.') ? name.slice(2) : name;
}

/** The name and its parents down to two labels: `a.b.example.com` -> itself, `b.example.com`, `example.com`. */
export function nameAndParents(name: string): string[] {
  const labels = dcvBase(name).split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/** The approver addresses accepted for a name: the constructed mailboxes of the name and its parents. */
export function approverEmails(name: string): string[] {
  return nameAndParents(name).flatMap((domain) => approverMailboxes.map((box) => `${box}@${domain}`));
}

/** The www/non-www counterpart of a name (`www.a.nl` <-> `a.nl`); none for wildcards. */
export function wwwCounterpart(name: string): string | undefined {
  if (name.startsWith('*.')) return undefined;
  return name.startsWith('www.') ? name.slice(4) : `www.${name}`;
}

/** The wire fields of one DCV entry (without its statuses) for a method. */
export function dcvInstructions(
  authority: CertificateAuthority,
  csrSha256: string,
  uniqueValue: string,
  commonName: string,
  type: DcvType,
  email?: string,
): Omit<DcvState, 'status' | 'caaRecordStatus'> {
  const base = dcvBase(commonName);
  const hash = csrSha256.toLowerCase();
  const label = hash.slice(0, 32);
  const value = `${label}.${hash.slice(32, 64)}.${uniqueValue.toLowerCase()}.${authority.dcv.target}`;
  switch (type) {
    case 'DNS':
      return {
        commonName,
        type,
        dnsRecord: `_${label}.${base}`,
        dnsType: authority.dcv.dnsType,
        dnsContents: value,
      };
    case 'FILE':
      return {
        commonName,
        type,
        fileLocation: `http://${base}/.well-known/pki-validation/${label.toUpperCase()}.txt`,
        fileContents: `${hash}\n${authority.dcv.target}\n${uniqueValue}`,
      };
    case 'EMAIL':
      return { commonName, type, email: email ?? `admin@${base}` };
  }
}

/** A DCV record name as stored in a zone, made absolute: `##DOMAIN##`, `@`, relative and dotted names. */
export function absoluteRecordName(name: string, zoneName: string): string {
  const replaced = name.replaceAll('##DOMAIN##', zoneName).toLowerCase();
  if (replaced === '@' || replaced === '') return zoneName;
  if (replaced.endsWith('.')) return replaced.slice(0, -1);
  if (replaced === zoneName || replaced.endsWith(`.${zoneName}`)) return replaced;
  return `${replaced}.${zoneName}`;
}

/** A stable digest of a value (one-way), used where the sandbox needs a deterministic choice. */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** An entry's e-mail (only for EMAIL, and one of the approver mailboxes) and type (no FILE for a wildcard). */
export function checkDcvEntry(entry: DcvRequest, field: string, violations: Violation[]): void {
  if (entry.type === 'EMAIL') {
    if (entry.email === undefined) violations.push({ field: `${field}.email`, message: 'is required for EMAIL validation' });
    else if (!approverEmails(entry.commonName).includes(entry.email)) {
      violations.push({
        field: `${field}.email`,
        message: `must be ${approverMailboxes.join('@, ')}@ at ${entry.commonName.replace(/^\*\./, '')} or a parent domain`,
        value: entry.email,
      });
    }
  } else if (entry.email !== undefined) {
    violations.push({ field: `${field}.email`, message: 'is only for EMAIL validation' });
  }
  if (entry.type === 'FILE' && entry.commonName.startsWith('*.')) {
    violations.push({ field: `${field}.type`, message: 'FILE validation is not possible for a wildcard name' });
  }
}
