import { integrationSettings } from '../integrations.ts';
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
 * runs `acme`, and bundled only for such a stage: a DCV job on the sandbox authority neither
 * evaluates nor parses it.
 */
export async function authorityGateway(authority: CertificateAuthority): Promise<CertificateAuthorityGateway> {
  if (chosenAuthority === 'acme') {
    // Replaced by a constant when the function is bundled for a stage whose authority is not ACME
    // (infra/bundling.ts): the branch that loads the client is then left out of the bundle.
    return process.env.ACME_CLIENT_BUNDLED === 'false'
      ? noAcmeClient()
      : new (await import('./acme-authority.ts')).AcmeAuthority(authority, dnsIntegration);
  }
  return new SandboxAuthority(authority);
}

/** The refusal of a bundle made for a stage without ACME, should its setting say `acme` after all. */
function noAcmeClient(): never {
  throw new Error(
    `${integrationSettings.authority} is 'acme', but this function was bundled for a stage whose authority is not ACME: it carries no ACME client (deploy the stage with its authority set to acme)`,
  );
}
