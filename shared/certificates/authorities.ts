import { authorityImplementations, integrationSettings } from '../integrations.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import { requiredSetting } from '../settings.ts';
import type { AuthorityDesk, CertificateAuthorityPort } from './authority.ts';
import { AcmeAuthority } from './authority-acme.ts';
import { AcmeDesk } from './authority-acme-desk.ts';
import { SandboxAuthority } from './authority-sandbox.ts';
import { SandboxDesk } from './authority-sandbox-desk.ts';

/**
 * The certificate-authority port's one selector: `CERTIFICATE_AUTHORITY`, `sandbox` (the
 * data-driven sandbox authority, authority-sandbox.ts) or `acme` (authority-acme.ts, with
 * `ACME_DIRECTORY_URL` and the EAB settings). Read when the function starts; without it the
 * function refuses to start rather than run the sandbox by default.
 */
export const chosenAuthority = requiredSetting(integrationSettings.authority, authorityImplementations);

/** An authority record's adapter, as the stage chose it. */
export function certificateAuthority(authority: CertificateAuthority): CertificateAuthorityPort {
  if (chosenAuthority === 'acme') return new AcmeAuthority(authority);
  return new SandboxAuthority(authority);
}

/**
 * The desk of an authority record's adapter, as the stage chose it: the port's methods that never
 * issue (cancel, resend, change DCV). A function that takes only this imports neither the sandbox's
 * issuing (its CA's signing) nor the ACME order's steps.
 */
export function authorityDesk(authority: CertificateAuthority): AuthorityDesk {
  if (chosenAuthority === 'acme') return new AcmeDesk(authority);
  return new SandboxDesk(authority);
}
