import type { CertificateAuthority } from '../model/certificate.ts';
import { chosenAuthority } from './authorities.ts';
import { type CertificateAuthorityGateway, SandboxAuthority } from './authority.ts';

/**
 * The DNS integration the ACME authority publishes dns-01 records through, loaded only when it is
 * needed, so that a function running the sandbox authority needs no DNS settings.
 */
async function dnsIntegration() {
  return (await import('../dns/select.ts')).dnsProvider();
}

/**
 * The whole gateway of an authority (planning and work), through the chosen integration
 * (authorities.ts). The ACME client (about 1 MB with its HTTP stack) is loaded only when the stage
 * runs `acme`: a DCV job on the sandbox authority never evaluates it.
 */
export async function authorityGateway(authority: CertificateAuthority): Promise<CertificateAuthorityGateway> {
  if (chosenAuthority === 'acme') return new (await import('./acme-authority.ts')).AcmeAuthority(authority, dnsIntegration);
  return new SandboxAuthority(authority);
}
