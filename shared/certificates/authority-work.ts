import type { CertificateAuthority } from '../model/certificate.ts';
import { AcmeAuthority } from './acme-authority.ts';
import { chosenAuthority } from './authorities.ts';
import { type CertificateAuthorityGateway, SandboxAuthority } from './authority.ts';

/**
 * The DNS integration the ACME authority publishes dns-01 records through, loaded only when it is
 * needed, so that a function running the sandbox authority needs no DNS settings.
 */
async function dnsIntegration() {
  return (await import('../dns/select.ts')).dnsProvider();
}

/** The whole gateway of an authority (planning and work), through the chosen integration (authorities.ts). */
export function authorityGateway(authority: CertificateAuthority): CertificateAuthorityGateway {
  if (chosenAuthority === 'acme') return new AcmeAuthority(authority, dnsIntegration);
  return new SandboxAuthority(authority);
}
