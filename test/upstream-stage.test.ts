import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage, stageFrom, stagesDir } from '../infra/stages.ts';
import { jobs, routes } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/**
 * A stage whose registry is an upstream Realtime Register account: its functions that talk to the
 * registry are handed the account's settings and may read its key's secret, the others neither;
 * the account's customer handle and registries are required in its stage file; and a function
 * started without one of the settings refuses to start, naming it.
 */

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const noBundling = { 'aws:cdk:bundling-stacks': [] };
const upstreamStage = loadStage('sandbox-upstream-ote');
const upstreamFile = JSON.parse(readFileSync(join(stagesDir, 'sandbox-upstream-ote.json'), 'utf8'));

describe('a stage transferring through an upstream account', () => {
  it('names the account in its stage file: the customer handle and the registries are required, each error by its path', () => {
    const { apiUrl } = upstreamFile.integrations.registry;
    const file = (registry: Record<string, unknown>) => ({ ...upstreamFile, integrations: { ...upstreamFile.integrations, registry } });
    expect(() => stageFrom('sandbox-upstream-ote', file({ implementation: 'rtr', apiUrl }))).toThrow(
      /integrations\.registry\.customer: [^\n]*\n {2}integrations\.registry\.registries: /,
    );
    expect(() => stageFrom('sandbox-upstream-ote', file({ implementation: 'rtr', apiUrl, customer: 'reseller', registries: [] }))).toThrow(
      'integrations.registry.registries: names at least one registry',
    );
    expect(upstreamStage.integrations.registry).toEqual({
      implementation: 'rtr',
      apiUrl: 'https://api.yoursrs-ote.com',
      customer: 'reseller-handle',
      registries: ['sidn', 'verisign'],
    });
  });

  it("hands the registry's functions the account's settings and its key's secret, and no other function", () => {
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Upstream', { stage: upstreamStage });
    const template = deployedTemplate(stack);
    const json = template.toJSON();
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    const keySecret = Object.keys(secrets).find((id) => secrets[id]?.Properties.Description === 'RTR_API_KEY for the registrar functions');
    expect(keySecret).toBeDefined();
    for (const declared of [...routes, ...jobs]) {
      const fn = stack.functions.get(declared.id);
      const variables = json.Resources[stack.getLogicalId(fn?.node.defaultChild as never)].Properties.Environment.Variables;
      const roleId = stack.getLogicalId(fn?.role?.node.defaultChild as never);
      const reads = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))
        .flatMap((s) => [s.Resource].flat());
      if (declared.integrations?.includes('registry')) {
        expect(variables, declared.id).toMatchObject({
          REGISTRY_GATEWAY: 'rtr',
          RTR_API_URL: 'https://api.yoursrs-ote.com',
          RTR_CUSTOMER: 'reseller-handle',
          RTR_REGISTRIES: 'sidn,verisign',
          RTR_API_KEY_ARN: { Ref: keySecret },
        });
        expect(reads, declared.id).toContainEqual({ Ref: keySecret });
      } else {
        expect(
          Object.keys(variables).filter((name) => name.startsWith('RTR_')),
          declared.id,
        ).toEqual([]);
        expect(reads, declared.id).not.toContainEqual({ Ref: keySecret });
      }
      expect(JSON.stringify(variables)).not.toContain('resolve:secretsmanager');
    }
  }, 60_000);

  it.each([
    ['RTR_API_URL', 'RTR_API_URL is not set: REGISTRY_GATEWAY=rtr needs it'],
    ['RTR_CUSTOMER', 'RTR_CUSTOMER is not set: REGISTRY_GATEWAY=rtr needs it'],
    ['RTR_REGISTRIES', 'RTR_REGISTRIES is not set: REGISTRY_GATEWAY=rtr needs it'],
    ['RTR_API_KEY_ARN', 'RTR_API_KEY is not set: REGISTRY_GATEWAY=rtr needs it'],
  ])(
    'a function started without %s refuses to start, naming it',
    async (missing, message) => {
      const env: Record<string, string> = {
        REGISTRY_GATEWAY: 'rtr',
        RTR_API_URL: 'https://api.yoursrs-ote.com',
        RTR_CUSTOMER: 'reseller',
        RTR_REGISTRIES: 'sidn',
        RTR_API_KEY_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:k',
      };
      delete env[missing];
      const script = `await import(${JSON.stringify(join(root, 'functions', 'transfer', 'handler.ts'))});`;
      const started = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...env },
      }).then(
        () => '',
        (error: { stderr?: string }) => error.stderr ?? String(error),
      );
      expect(started).toContain(message);
    },
    30_000,
  );
});
