import type { FunctionDeclaration } from './function.ts';
import type { Stage } from './stages.ts';

/**
 * The DNS provider's part of the stack (docs/dns.md). The functions that push zones (they declare
 * the `POWERDNS_API_KEY` secret: the zone sync and the reconcile job) get the settings of the
 * stage's provider:
 * - `powerdns`: `POWERDNS_API_URL` and `POWERDNS_SERVER_ID` (from the synth's environment; the URL
 *   is required) and the API key's secret, which the stack creates and the operator fills with
 *   PowerDNS's key;
 * - `route53` and `sandbox`: no PowerDNS secret.
 */

/** Whether a declaration pushes zones to the provider. */
export function pushesZones(declaration: FunctionDeclaration): boolean {
  return declaration.integrations?.includes('dns') === true && declaration.secrets?.includes('POWERDNS_API_KEY') === true;
}

/** The declaration as the stage's DNS provider needs it: its settings in, the PowerDNS secret only for PowerDNS. */
export function withDnsSettings(stage: Stage, declaration: FunctionDeclaration, env = process.env): FunctionDeclaration {
  if (!pushesZones(declaration)) return declaration;
  const provider = stage.integrations.dns ?? 'sandbox';
  const secrets = (declaration.secrets ?? []).filter((name) => name !== 'POWERDNS_API_KEY' || provider === 'powerdns');
  const environment: Record<string, string> = { ...declaration.environment };
  if (provider === 'powerdns') {
    const url = env.POWERDNS_API_URL?.trim();
    if (!url || !URL.canParse(url)) {
      throw new Error('DNS_PROVIDER=powerdns: set POWERDNS_API_URL (the URL of its HTTP API) for the synth');
    }
    environment.POWERDNS_API_URL = url;
    environment.POWERDNS_SERVER_ID = env.POWERDNS_SERVER_ID?.trim() || 'localhost';
  }
  return { ...declaration, secrets, environment };
}
