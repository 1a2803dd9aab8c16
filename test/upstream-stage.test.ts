import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { type Stage, stages, withUpstreamAccount } from '../infra/stages.ts';
import { jobs, routes } from '../shared/routes.ts';

/**
 * A stage whose registry is an upstream Realtime Register account: its functions that talk to the
 * registry are handed the account's settings and may read its key's secret, the others neither;
 * the account's customer handle and registries are required on the command line; and a function
 * started without one of the settings refuses to start, naming it.
 */

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const noBundling = { 'aws:cdk:bundling-stacks': [] };
const upstreamStage = stages['sandbox-upstream-ote'] as Stage;
const context = (values: Record<string, string>) => (key: string) => values[key];

describe('a stage transferring through an upstream account', () => {
  it('requires the account customer handle and registries from the command line', () => {
    expect(() => withUpstreamAccount(upstreamStage, context({}))).toThrow('-c rtrCustomer=<handle>');
    expect(() => withUpstreamAccount(upstreamStage, context({ rtrCustomer: 'reseller' }))).toThrow('-c rtrRegistries=');
    expect(withUpstreamAccount(upstreamStage, context({ rtrCustomer: 'reseller', rtrRegistries: 'sidn, verisign' })).upstream).toEqual({
      apiUrl: 'https://api.yoursrs-ote.com',
      customer: 'reseller',
      registries: ['sidn', 'verisign'],
    });
    // Other stages are left as they are.
    expect(withUpstreamAccount(stages.sandbox as Stage, context({}))).toBe(stages.sandbox);
  });

  it("hands the registry's functions the account's settings and its key's secret, and no other function", () => {
    const stage = withUpstreamAccount(upstreamStage, context({ rtrCustomer: 'reseller', rtrRegistries: 'sidn,verisign' }));
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Upstream', { stage });
    const template = Template.fromStack(stack);
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
          RTR_CUSTOMER: 'reseller',
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
