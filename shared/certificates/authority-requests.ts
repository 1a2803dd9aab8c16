import type { CertificateAuthority } from '../model/certificate.ts';
import { AcmeRequests } from './acme-plan.ts';
import { chosenAuthority } from './authorities.ts';
import { type AuthorityRequests, SandboxAuthority } from './authority.ts';

/**
 * What the customer's requests on a certificate process (cancel, resend, a DCV change) ask of the
 * chosen authority (authorities.ts), without the ACME client: an ACME order is withdrawn by the
 * DCV job (authority-work.ts gives it the whole gateway), so process-cancel and process-resend
 * bundle no HTTP stack of their own.
 */
export function authorityRequests(authority: CertificateAuthority): AuthorityRequests {
  if (chosenAuthority === 'acme') return new AcmeRequests(authority);
  return new SandboxAuthority(authority);
}
