import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage, type Stage, stageFrom } from '../infra/stages.ts';
import { deployedTemplate } from './support/stack-templates.ts';

// The stack synthesizes with each DNS provider (the stage file's `integrations.dns`), cdk-nag clean, and
// hands the zone-pushing functions what their provider needs and nothing of the others.

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function synth(
  dns: Record<string, unknown> & { implementation: string },
  authority?: Record<string, unknown> & { implementation: string },
) {
  const folder = mkdtempSync(join(tmpdir(), `nag-dns-${dns.implementation}-`));
  folders.push(folder);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: folder });
  const { name, ...base } = loadStage('sandbox');
  const stage: Stage = stageFrom(name, { ...base, integrations: { ...base.integrations, dns, ...(authority ? { authority } : {}) } });
  const stack = new RegistrarStack(app, `Dns${dns.implementation}`, { stage });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const template = deployedTemplate(stack);
  const report = JSON.parse(readFileSync(join(folder, 'validation-report.json'), 'utf8'));
  const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
  const variables = (id: string) => {
    const fn = stack.functions.get(id);
    return template.toJSON().Resources[stack.getLogicalId(fn?.node.defaultChild as never)].Properties.Environment.Variables;
  };
  /** Every action the function's role is allowed. */
  const actions = (id: string): string[] => {
    const role = stack.getLogicalId(stack.functions.get(id)?.role?.node.defaultChild as never);
    return Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
      .flatMap((r) => (r.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement)
      .flatMap((statement) => [statement.Action].flat());
  };
  /** The logical ids of the DNS signing keys (Route 53's KSK key); the webhook secrets key, on every stage, is not one. */
  const dnsKeys = () =>
    Object.entries(template.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>)
      .filter(([id, r]) => r.Type === 'AWS::KMS::Key' && (id.startsWith('Route53DnssecKey') || r.Properties?.KeyUsage === 'SIGN_VERIFY'))
      .map(([id]) => id);
  return { template, violations: nag.violations, variables, actions, dnsKeys };
}

describe('the stack with each DNS provider', () => {
  it('refuses a DNS provider it does not know, naming the setting', () => {
    const { name, ...base } = loadStage('sandbox');
    expect(() => stageFrom(name, { ...base, integrations: { ...base.integrations, dns: { implementation: 'bind' } } })).toThrow(
      'integrations.dns.implementation: must name one of: sandbox, powerdns, route53 (got "bind")',
    );
  });

  it('powerdns: the API URL and the key secret go to the zone sync and the reconcile job; cdk-nag clean', () => {
    const { template, violations, variables, dnsKeys } = synth({ implementation: 'powerdns', apiUrl: 'https://pdns.example.net:8081' });
    expect(violations).toEqual([]);
    for (const id of ['zone-sync', 'zone-reconcile']) {
      expect(variables(id)).toMatchObject({
        DNS_PROVIDER: 'powerdns',
        POWERDNS_API_URL: 'https://pdns.example.net:8081',
        POWERDNS_SERVER_ID: 'localhost',
        POWERDNS_API_KEY_ARN: { Ref: expect.stringMatching(/^SecretPOWERDNSAPIKEY/) },
      });
    }
    expect(variables('zone')).toMatchObject({ DNS_PROVIDER: 'powerdns' });
    expect(variables('zone').POWERDNS_API_KEY_ARN).toBeUndefined();
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
    expect(dnsKeys()).toEqual([]);
    expect(variables('zone-sync').ROUTE53_KSK_KMS_KEY_ARN).toBeUndefined();
  }, 120_000);

  it('route53: the Route 53 calls, a P-256 signing key for DNSSEC, no PowerDNS secret; cdk-nag clean', () => {
    const { template, violations, variables, dnsKeys } = synth({ implementation: 'route53', delegationSetId: 'N0123456789ABCDEFGHIJ' });
    expect(violations).toEqual([]);
    template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    expect(dnsKeys()).toEqual([expect.stringMatching(/^Route53DnssecKey/)]);
    expect(variables('zone-sync')).toMatchObject({
      DNS_PROVIDER: 'route53',
      ROUTE53_DELEGATION_SET_ID: 'N0123456789ABCDEFGHIJ',
      ROUTE53_KSK_KMS_KEY_ARN: { 'Fn::GetAtt': [expect.stringMatching(/^Route53DnssecKey/), 'Arn'] },
    });
    expect(variables('zone-sync').POWERDNS_API_KEY_ARN).toBeUndefined();
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: Match.arrayWith(['route53:ChangeResourceRecordSets', 'route53:GetChange']) }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  }, 120_000);

  it('acme with each provider: the DCV job, which publishes the dns-01 records, gets what the provider needs, as the zone sync does', () => {
    const acme = { implementation: 'acme', directoryUrl: 'https://acme.example.com/directory' };
    const route53 = synth({ implementation: 'route53' }, acme);
    expect(route53.violations).toEqual([]);
    for (const id of ['dcv-check', 'zone-sync', 'zone-reconcile']) {
      expect(route53.actions(id), id).toEqual(expect.arrayContaining(['route53:ChangeResourceRecordSets', 'route53:GetChange']));
    }
    expect(route53.actions('zone').filter((a) => a.startsWith('route53:'))).toEqual([]);
    expect(route53.actions('renew').filter((a) => a.startsWith('route53:'))).toEqual([]);
    const powerdns = synth({ implementation: 'powerdns', apiUrl: 'https://pdns.example.net:8081' }, acme);
    expect(powerdns.variables('dcv-check')).toMatchObject({
      POWERDNS_API_URL: 'https://pdns.example.net:8081',
      POWERDNS_API_KEY_ARN: { Ref: expect.stringMatching(/^SecretPOWERDNSAPIKEY/) },
      ACME_EAB_HMAC_KEY_ARN: expect.anything(),
    });
    // Cancel and resend only name the authority: nothing of ACME or of the DNS provider.
    for (const id of ['renew', 'process-cancel', 'process-resend', 'zone']) {
      expect(powerdns.variables(id).POWERDNS_API_KEY_ARN, id).toBeUndefined();
      expect(powerdns.variables(id).ACME_EAB_HMAC_KEY_ARN, id).toBeUndefined();
    }
  }, 240_000);

  it('sandbox: no DNS provider settings, no key, no PowerDNS secret', () => {
    const { template, violations, variables, dnsKeys } = synth({ implementation: 'sandbox' });
    expect(violations).toEqual([]);
    expect(variables('zone-sync')).toMatchObject({ DNS_PROVIDER: 'sandbox' });
    expect(variables('zone-sync').POWERDNS_API_URL).toBeUndefined();
    expect(variables('zone-sync').ROUTE53_KSK_KMS_KEY_ARN).toBeUndefined();
    expect(dnsKeys()).toEqual([]);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  }, 120_000);
});
