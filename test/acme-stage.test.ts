import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { acmeEnvironment, authorityFromEnvironment, type Stage } from '../infra/stages.ts';

/** A stage that runs the ACME authority: what the stack hands the functions that work with the CA. */

const noBundling = { 'aws:cdk:bundling-stacks': [] };
const acmeStage: Stage = { name: 'sandbox-acme', integrations: { registry: 'sandbox', authority: 'acme', dns: 'powerdns' } };
const saved = { ...process.env };

afterEach(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('ACME_') && !(name in saved)) delete process.env[name];
});

describe('a stage with CERTIFICATE_AUTHORITY=acme', () => {
  it('is chosen at synth time by name, and needs a directory', () => {
    expect(authorityFromEnvironment(undefined)).toBe('sandbox');
    expect(authorityFromEnvironment('acme')).toBe('acme');
    expect(() => authorityFromEnvironment('letsencrypt')).toThrow(
      "CERTIFICATE_AUTHORITY is 'letsencrypt'; this build knows only: sandbox, acme",
    );
    expect(() => acmeEnvironment({})).toThrow('CERTIFICATE_AUTHORITY=acme needs ACME_DIRECTORY_URL');
    expect(acmeEnvironment({ ACME_DIRECTORY_URL_SECTIGO_OV: 'https://ov.example/dir', ACME_EAB_HMAC_KEY: 'secret', PATH: '/bin' })).toEqual(
      {
        ACME_DIRECTORY_URL_SECTIGO_OV: 'https://ov.example/dir',
      },
    );
  });

  it('hands the DCV job, cancel and resend the ACME settings, the EAB secret by ARN only, and the DNS provider; renew only the choice', () => {
    Object.assign(process.env, {
      ACME_DIRECTORY_URL: 'https://acme.example/directory',
      ACME_EAB_KID: 'kid-1',
      ACME_EAB_HMAC_KEY: 'must-not-be-in-the-template',
    });
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Acme', { stage: acmeStage });
    const template = Template.fromStack(stack);
    expect(JSON.stringify(template.toJSON())).not.toContain('must-not-be-in-the-template');
    const fns = template.findResources('AWS::Lambda::Function');
    const variables = (id: string) =>
      fns[stack.getLogicalId(stack.functions.get(id)?.node.defaultChild as never)]?.Properties.Environment.Variables;
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    const eabSecret = Object.keys(secrets).find((id) => id.includes('ACMEEABHMACKEY'));
    expect(eabSecret).toBeDefined();
    for (const id of ['dcv-check', 'process-cancel', 'process-resend']) {
      expect(variables(id), id).toMatchObject({
        CERTIFICATE_AUTHORITY: 'acme',
        DNS_PROVIDER: 'powerdns',
        ACME_DIRECTORY_URL: 'https://acme.example/directory',
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
    expect(variables('renew')).toMatchObject({ CERTIFICATE_AUTHORITY: 'acme' });
    expect(Object.keys(variables('renew')).filter((name) => name.startsWith('ACME_'))).toEqual([]);
  }, 60_000);
});
