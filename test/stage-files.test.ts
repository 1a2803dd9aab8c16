import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { stageJsonSchemaText, stageSchemaFile } from '../infra/stage-schema.ts';
import { implementationsOf, loadStage, type Stage, stageFromContext, stageNames, stagesDir } from '../infra/stages.ts';
import { integrationSettings, jobs, routes, streamConsumers } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/**
 * A stage's settings are one file, stages/<name>.json, read at synth time: the functions get the
 * integrations and the service settings from it, the custom domain exists only when it names one,
 * an invalid file stops the synth naming every error by its path, and production runs no sandbox.
 */

const noBundling = { 'aws:cdk:bundling-stacks': [] };
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function synth(stage: Stage, id = 'StageFile') {
  const stack = new RegistrarStack(new App({ context: noBundling }), id, { stage });
  const template = deployedTemplate(stack);
  const fns = template.findResources('AWS::Lambda::Function');
  const variables = (fnId: string): Record<string, unknown> =>
    fns[stack.getLogicalId(stack.functions.get(fnId)?.node.defaultChild as never)]?.Properties.Environment.Variables;
  return { stack, template, variables };
}

const production = loadStage('production');
const productionFile = JSON.parse(readFileSync(join(stagesDir, 'production.json'), 'utf8'));

describe('the stage files', () => {
  it('are the stages this build deploys, each valid, production running no sandbox integration', () => {
    expect(stageNames()).toEqual(['production', 'sandbox', 'sandbox-upstream-ote']);
    for (const name of stageNames()) expect(loadStage(name).name).toBe(name);
    expect(implementationsOf(production)).toEqual({ registry: 'rtr', authority: 'acme', dns: 'route53' });
    expect(Object.values(implementationsOf(production))).not.toContain('sandbox');
    expect(() => stageFromContext('staging')).toThrow(
      'Choose the stage to synthesize or deploy: -c stage=<name>, one of production, sandbox, sandbox-upstream-ote (got "staging")',
    );
  });

  it('ships docs/stage.schema.json as the valibot schema generates it (run `npm run stage-schema` after a change)', () => {
    expect(readFileSync(stageSchemaFile, 'utf8')).toBe(stageJsonSchemaText());
  });

  it('refuses an invalid file, naming the file and the path of every error, and a file naming a secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stages-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'production.json'),
      JSON.stringify({
        ...productionFile,
        integrations: {
          ...productionFile.integrations,
          registry: { ...productionFile.integrations.registry, customer: 'no spaces', apiKey: 'secret' },
          dns: { implementation: 'bind' },
        },
        dns: { ...productionFile.dns, nameServers: [] },
        validationManagerUrl: 'validation.example.com',
        customDomain: { domainName: 'api.example.com', certificateArn: 'arn:aws:iam::1:role/x' },
      }),
    );
    let message = '';
    try {
      stageFromContext('production', dir);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'stages/production.json is not a valid stage file:',
      expect.stringMatching(/^ {2}integrations\.registry\.customer: must be a handle/),
      expect.stringMatching(/^ {2}integrations\.registry\.apiKey: /),
      '  integrations.dns.implementation: must name one of: sandbox, powerdns, route53 (got "bind")',
      '  dns.nameServers: needs at least one name server',
      '  validationManagerUrl: must be a URL',
      '  validationManagerUrl: must be an https:// URL',
      '  customDomain.certificateArn: must be an ACM certificate ARN',
    ]);
  });

  it("hands the functions the file's integrations and their settings, the name servers, hostmaster and validation page", () => {
    const { variables } = synth(production, 'Production');
    for (const declared of [...routes, ...jobs, ...streamConsumers]) {
      const vars = variables(declared.id);
      for (const [integration, setting] of Object.entries(integrationSettings)) {
        const uses = declared.integrations?.includes(integration as never) ?? false;
        expect(vars[setting], `${declared.id} ${setting}`).toBe(
          uses ? implementationsOf(production)[integration as keyof typeof integrationSettings] : undefined,
        );
      }
      expect(vars.VALIDATION_MANAGER_URL, declared.id).toBe('https://validation.example.com/validate');
    }
    expect(variables('zone')).toMatchObject({
      DNS_PROVIDER: 'route53',
      DNS_NAMESERVERS: 'ns1.example.com,ns2.example.com,ns3.example.com',
      DNS_PREMIUM_NAMESERVERS: 'ns1.premium.example.com,ns2.premium.example.com,ns3.premium.example.com',
      DNS_HOSTMASTER: 'hostmaster@example.com',
    });
    expect(variables('transfer')).toMatchObject({
      REGISTRY_GATEWAY: 'rtr',
      RTR_API_URL: 'https://api.yoursrs.com',
      RTR_CUSTOMER: 'reseller-handle',
      RTR_REGISTRIES: 'sidn,verisign',
    });
    expect(variables('dcv-check')).toMatchObject({
      CERTIFICATE_AUTHORITY: 'acme',
      ACME_DIRECTORY_URL: 'https://acme.example.com/directory',
      ACME_EAB_KID: 'example-eab-key-id',
    });
    const sandbox = synth(loadStage('sandbox'), 'Sandbox');
    expect(sandbox.variables('zone').DNS_NAMESERVERS).toBe(
      'ns1.registrar-sandbox.example,ns2.registrar-sandbox.example,ns3.registrar-sandbox.example',
    );
  }, 120_000);

  it('makes a custom domain with a base path mapping and the alarm subscription only when the file names them', () => {
    const { template, stack } = synth(production, 'WithDomain');
    template.resourceCountIs('AWS::ApiGateway::DomainName', 1);
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: productionFile.customDomain.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', {
      RestApiId: { Ref: stack.getLogicalId(stack.api.node.defaultChild as never) },
      Stage: { Ref: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'operations@example.com' });

    const { template: without } = synth({ ...production, customDomain: undefined, alarmEmail: undefined }, 'WithoutDomain');
    without.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    without.resourceCountIs('AWS::ApiGateway::BasePathMapping', 0);
    without.resourceCountIs('AWS::SNS::Subscription', 0);
  }, 120_000);

  it('synthesizes the production stage (its custom domain included) cdk-nag clean, with no new acknowledgment', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'nag-'));
    dirs.push(outdir);
    const sandboxApp = new App({ context: noBundling, outdir: mkdtempSync(join(tmpdir(), 'nag-')) });
    dirs.push(sandboxApp.outdir);
    const app = new App({ context: noBundling, outdir });
    new RegistrarStack(app, 'Registrar-production', { stage: production });
    new RegistrarStack(sandboxApp, 'Registrar-sandbox', { stage: loadStage('sandbox') });
    const suppressed = (a: App) => {
      Validations.of(a).addPlugins(new AwsSolutionsChecks(a));
      expect(() => a.synth()).not.toThrow();
      const report = JSON.parse(readFileSync(join(a.outdir, 'validation-report.json'), 'utf8'));
      const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
      expect(nag.violations).toEqual([]);
      return new Set(nag.suppressedViolations.map((v: { ruleName: string }) => v.ruleName));
    };
    const inProduction = suppressed(app);
    const inSandbox = suppressed(sandboxApp);
    expect([...inProduction].filter((rule) => !inSandbox.has(rule))).toEqual([]);
  }, 120_000);
});
