import type { CertificateAuthority } from '../model/certificate.ts';
import { authorityImplementations, integrationSettings } from '../routes.ts';
import { requiredSetting } from '../settings.ts';
import { AcmeAuthority } from './acme-authority.ts';
import { type CertificateAuthorityGateway, SandboxAuthority } from './authority.ts';

/**
 * The certificate-authority integration, as the stage chose it: `CERTIFICATE_AUTHORITY`, `sandbox`
 * (the data-driven sandbox authority) or `acme` (acme-authority.ts, with `ACME_DIRECTORY_URL` and
 * the EAB settings). Read when the function starts; without it the function refuses to start
 * rather than run the sandbox by default.
 */
const chosen = requiredSetting(integrationSettings.authority, authorityImplementations);

/**
 * The DNS integration the ACME authority publishes dns-01 records through, loaded only when it is
 * needed, so a function that only plans requests (renew) needs no DNS settings.
 */
async function dnsIntegration() {
  return (await import('../dns/select.ts')).dnsProvider();
}

/** The gateway for an authority, through the chosen integration. */
export function authorityGateway(authority: CertificateAuthority): CertificateAuthorityGateway {
  if (chosen === 'acme') return new AcmeAuthority(authority, dnsIntegration);
  return new SandboxAuthority(authority);
}
