import { authorityImplementations, integrationSettings } from '../integrations.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import { requiredSetting } from '../settings.ts';
import { AcmePlanning } from './acme-plan.ts';
import { type AuthorityPlanning, SandboxAuthority } from './authority.ts';

/**
 * The certificate-authority integration, as the stage chose it: `CERTIFICATE_AUTHORITY`, `sandbox`
 * (the data-driven sandbox authority) or `acme` (acme-authority.ts, with `ACME_DIRECTORY_URL` and
 * the EAB settings). Read when the function starts; without it the function refuses to start
 * rather than run the sandbox by default. This module gives the planning (renew, the validation
 * manager); authority-work.ts the whole gateway (the DCV job, cancel, resend), with the ACME client.
 */
export const chosenAuthority = requiredSetting(integrationSettings.authority, authorityImplementations);

/** The planning of an authority, through the chosen integration. */
export function authorityPlanning(authority: CertificateAuthority): AuthorityPlanning {
  if (chosenAuthority === 'acme') return new AcmePlanning(authority);
  return new SandboxAuthority(authority);
}
