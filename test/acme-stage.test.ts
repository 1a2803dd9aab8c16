import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage, stageFrom } from '../infra/stages.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/** A stage that runs the ACME authority: what the stack hands the functions that work with the CA, from the stage file. */

const noBundling = { 'aws:cdk:bundling-stacks': [] };
const { name: _, ...sandboxFile } = loadStage('sandbox');
const acmeFile = (authority: Record<string, unknown>) => ({
  ...sandboxFile,
  integrations: {
    registry: { implementation: 'sandbox' },
    authority,
    dns: { implementation: 'powerdns', apiUrl: 'https://pdns.example.com/api' },
  },
});

describe('a stage file with the acme authority', () => {
  it('names its directory (and per-authority directories), or fails with the path of each error', () => {
    expect(() => stageFrom('sandbox-acme', acmeFile({ implementation: 'acme' }))).toThrow('integrations.authority.directoryUrl: ');
    expect(() => stageFrom('sandbox-acme', acmeFile({ implementation: 'acme', directoryUrl: 'http://plain.example/dir' }))).toThrow(
      'integrations.authority.directoryUrl: must be an https:// URL',
    );
    expect(() => stageFrom('sandbox-acme', acmeFile({ implementation: 'letsencrypt' }))).toThrow(
      'integrations.authority.implementation: must name one of: sandbox, acme (got "letsencrypt")',
    );
    expect(() =>
      stageFrom('sandbox-acme', acmeFile({ implementation: 'acme', directoryUrl: 'https://acme.example/directory', eabHmacKey: 'secret' })),
    ).toThrow(/integrations\.authority\.eabHmacKey: /);
  });

  it('hands the DCV job the ACME settings, the EAB secret by ARN only, and the DNS provider; renew, cancel and resend only the choice', () => {
    const stage = stageFrom(
      'sandbox-acme',
      acmeFile({
        implementation: 'acme',
        directoryUrl: 'https://acme.example/directory',
        directoryUrls: { SECTIGO_OV: 'https://ov.example/dir' },
        eabKeyId: 'kid-1',
      }),
    );
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Acme', { stage });
    const template = deployedTemplate(stack);
    const fns = template.findResources('AWS::Lambda::Function');
    const variables = (id: string) =>
      fns[stack.getLogicalId(stack.functions.get(id)?.node.defaultChild as never)]?.Properties.Environment.Variables;
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    const eabSecret = Object.keys(secrets).find((id) => id.includes('ACMEEABHMACKEY'));
    expect(eabSecret).toBeDefined();
    for (const id of ['dcv-check']) {
      expect(variables(id), id).toMatchObject({
        CERTIFICATE_AUTHORITY: 'acme',
        DNS_PROVIDER: 'powerdns',
        POWERDNS_API_URL: 'https://pdns.example.com/api',
        POWERDNS_SERVER_ID: 'localhost',
        ACME_DIRECTORY_URL: 'https://acme.example/directory',
        ACME_DIRECTORY_URL_SECTIGO_OV: 'https://ov.example/dir',
        ACME_EAB_KID: 'kid-1',
        ACME_EAB_HMAC_KEY_ARN: { Ref: eabSecret },
        POWERDNS_API_KEY_ARN: expect.anything(),
      });
      expect(variables(id).ACME_EAB_HMAC_KEY, id).toBeUndefined();
      const roleId = stack.getLogicalId(stack.functions.get(id)?.role?.node.defaultChild as never);
      const reads = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'))
        .flatMap((st) => [st.Resource].flat());
      expect(reads, id).toContainEqual({ Ref: eabSecret });
    }
    // They call no CA (cancel leaves an ACME order to the DCV job): the choice only, no EAB secret, no DNS provider.
    for (const id of ['renew', 'process-cancel', 'process-resend']) {
      expect(variables(id), id).toMatchObject({ CERTIFICATE_AUTHORITY: 'acme' });
      expect(
        Object.keys(variables(id)).filter((name) => name.startsWith('ACME_') || name.startsWith('POWERDNS_') || name === 'DNS_PROVIDER'),
        id,
      ).toEqual([]);
    }
  }, 60_000);
});
