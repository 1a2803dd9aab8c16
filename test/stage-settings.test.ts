import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as processInfo } from '../functions/process-info/handler.ts';
import { RegistrarStack } from '../infra/stack.ts';
import { checkStage, loadStage, StageSettings, stageFromContext } from '../infra/stages.ts';
import { forgetSecrets, secretsClient } from '../shared/aws/secrets.ts';
import { integrationSettings, jobs, routes } from '../shared/routes.ts';
import { apiEvent, invoke } from './support/api.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/**
 * Production never runs the sandbox by accident: the stage chooses every integration explicitly
 * and a sandbox stage says so by name; a function started without the settings it needs refuses
 * to start; the one-time-link secret has no constant to fall back to and is read at run time
 * from Secrets Manager (cached), never put into a function's environment.
 */

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');

/** Loads a function's handler module in a fresh Node process with `env` as its whole environment (plus PATH). */
async function start(dir: string, env: Record<string, string>): Promise<{ started: boolean; output: string }> {
  const script = `await import(${JSON.stringify(join(root, 'functions', dir, 'handler.ts'))});`;
  try {
    await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...env },
    });
    return { started: true, output: '' };
  } catch (error) {
    const e = error as { stderr?: string };
    return { started: false, output: e.stderr ?? String(error) };
  }
}

const sandbox = {
  REGISTRY_GATEWAY: 'sandbox',
  CERTIFICATE_AUTHORITY: 'sandbox',
  ONE_TIME_LINK_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:x',
};
const without = (name: string) => Object.fromEntries(Object.entries(sandbox).filter(([k]) => k !== name));

describe('a function started without the settings it needs refuses to start', () => {
  it.each([
    ['transfer', 'REGISTRY_GATEWAY'],
    ['transfer-poll', 'REGISTRY_GATEWAY'],
    ['renew', 'CERTIFICATE_AUTHORITY'],
    ['dcv-check', 'CERTIFICATE_AUTHORITY'],
    ['renew', 'ONE_TIME_LINK_SECRET_ARN'],
    ['process-info', 'ONE_TIME_LINK_SECRET_ARN'],
  ])(
    '%s without %s',
    async (dir, setting) => {
      const missing = await start(dir, without(setting));
      expect(missing.started).toBe(false);
      expect(missing.output).toContain(`${setting} is not set`);
    },
    60_000,
  );

  it('refuses an implementation this build does not have, and starts with the sandbox chosen explicitly', async () => {
    const live = await start('transfer', { ...sandbox, REGISTRY_GATEWAY: 'live' });
    expect(live).toMatchObject({ started: false });
    expect(live.output).toContain("REGISTRY_GATEWAY is 'live'; this build knows only: sandbox");
    expect(await start('transfer', sandbox)).toEqual({ started: true, output: '' });
  }, 60_000);
});

describe('the stage chooses the integrations, and a sandbox stage says so by name', () => {
  const noBundling = { 'aws:cdk:bundling-stacks': [] };
  const sandboxStage = loadStage('sandbox');

  it('refuses a stage that runs a sandbox integration under another name, and a synth that names no stage', () => {
    expect(() => checkStage({ ...sandboxStage, name: 'live' })).toThrow(
      "Stage 'live' would run the sandbox registry and authority and dns: a stage that runs a sandbox integration must be named sandbox...",
    );
    expect(() => new RegistrarStack(new App({ context: noBundling }), 'Live', { stage: { ...sandboxStage, name: 'production' } })).toThrow(
      /Stage 'production' would run the sandbox/,
    );
    expect(() => stageFromContext(undefined)).toThrow(
      'Choose the stage to synthesize or deploy: -c stage=<name>, one of production, sandbox, sandbox-upstream-ote',
    );
    expect(stageFromContext('sandbox')).toEqual(sandboxStage);
  }, 60_000);

  it('names the API stage after it and hands each function the integrations it declares, explicitly', () => {
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Stage', { stage: sandboxStage });
    const template = deployedTemplate(stack);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'sandbox' });
    const fns = template.findResources('AWS::Lambda::Function');
    for (const declared of [...routes, ...jobs]) {
      const fn = stack.functions.get(declared.id);
      const variables = fns[stack.getLogicalId(fn?.node.defaultChild as never)]?.Properties.Environment.Variables ?? {};
      for (const [integration, setting] of Object.entries(integrationSettings)) {
        const uses = declared.integrations?.includes(integration as never) ?? false;
        expect(variables[setting], `${declared.id} ${setting}`).toBe(uses ? 'sandbox' : undefined);
      }
    }
  }, 60_000);

  it('hands the domain check its limit from the stage file (limits.domainChecksPerMinute; 100 when absent) and refuses one out of range', () => {
    const { name: _name, limits: _limits, ...file } = sandboxStage;
    expect(sandboxStage.limits?.domainChecksPerMinute).toBe(100);
    expect(v.parse(StageSettings, file).limits).toEqual({ domainChecksPerMinute: 100 });
    expect(v.parse(StageSettings, { ...file, limits: {} }).limits).toEqual({ domainChecksPerMinute: 100 });
    for (const wrong of [0, 10_001, 2.5, '100']) {
      expect(v.safeParse(StageSettings, { ...file, limits: { domainChecksPerMinute: wrong } }).success, String(wrong)).toBe(false);
    }
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Limits', {
      stage: { ...sandboxStage, limits: { domainChecksPerMinute: 250 } },
    });
    const fns = deployedTemplate(stack).findResources('AWS::Lambda::Function');
    const check = stack.functions.get('domain-check');
    expect(fns[stack.getLogicalId(check?.node.defaultChild as never)]?.Properties.Environment.Variables.DOMAIN_CHECK_LIMIT).toBe('250');
  }, 60_000);

  it('tells a function where its secret is and lets it read that secret only; no value is resolved into any environment', () => {
    const stack = new RegistrarStack(new App({ context: noBundling }), 'Secrets', { stage: sandboxStage });
    const template = deployedTemplate(stack);
    const json = template.toJSON();
    const secretId = Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0] as string;
    for (const [, resource] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
      expect(JSON.stringify(resource.Properties.Environment ?? {})).not.toContain('resolve:secretsmanager');
      expect(resource.Properties.Environment?.Variables?.ONE_TIME_LINK_SECRET).toBeUndefined();
    }
    for (const route of routes) {
      const fn = stack.functions.get(route.id);
      const variables = json.Resources[stack.getLogicalId(fn?.node.defaultChild as never)].Properties.Environment.Variables;
      const roleId = stack.getLogicalId(fn?.role?.node.defaultChild as never);
      const statements = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } })).flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
      const reads = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:')));
      if (route.secrets?.includes('ONE_TIME_LINK_SECRET')) {
        expect(variables.ONE_TIME_LINK_SECRET_ARN, route.id).toEqual({ Ref: secretId });
        expect(reads, route.id).toEqual([{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretId } }]);
      } else {
        expect(variables.ONE_TIME_LINK_SECRET_ARN, route.id).toBeUndefined();
        expect(reads, route.id).toEqual([]);
      }
    }
  }, 60_000);
});

describe('the one-time-link secret is read from Secrets Manager at run time, and cached', () => {
  const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:one-time-link';
  const stored = 'secret-from-secrets-manager-0123456789abcdefghij';
  const local = process.env.ONE_TIME_LINK_SECRET;
  const middleware = 'answer-get-secret-value';

  afterEach(() => {
    secretsClient().middlewareStack.remove(middleware);
    delete process.env.ONE_TIME_LINK_SECRET_ARN;
    process.env.ONE_TIME_LINK_SECRET = local;
    forgetSecrets();
  });

  /** Secrets Manager's answers, given at the SDK client (there is no local Secrets Manager): the secret, or a failure. */
  function secretsManager(answer: () => unknown): { asked: string[] } {
    const asked: string[] = [];
    secretsClient().middlewareStack.add(
      () => async (args) => {
        asked.push(String((args.input as { SecretId?: string }).SecretId));
        return { output: { $metadata: {}, ...(answer() as object) }, response: {} } as never;
      },
      { step: 'initialize', name: middleware },
    );
    return { asked };
  }

  const info502 = () =>
    invoke(
      processInfo,
      apiEvent({
        method: 'GET',
        path: '/v2/processes/502/info',
        resource: '/v2/processes/{processId}/info',
        pathParameters: { processId: '502' },
      }),
    );

  it('signs links with the secret Secrets Manager holds, asking once for several requests', async () => {
    process.env.ONE_TIME_LINK_SECRET_ARN = arn;
    delete process.env.ONE_TIME_LINK_SECRET;
    const { asked } = secretsManager(() => ({ SecretString: stored, ARN: arn, Name: 'one-time-link' }));
    const answers = [await info502(), await info502(), await info502()];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(asked).toEqual([arn]);
    const token = new URL(answers[0]?.body.oneTimeLink as string).searchParams.get('token') as string;
    const [payload, signature] = token.split('.');
    expect(signature).toBe(
      createHmac('sha256', stored)
        .update(payload as string)
        .digest('base64url'),
    );
  });

  it('answers 503 when Secrets Manager fails, and never signs with anything else', async () => {
    process.env.ONE_TIME_LINK_SECRET_ARN = arn;
    delete process.env.ONE_TIME_LINK_SECRET;
    secretsManager(() => {
      throw Object.assign(new Error('Secrets Manager is unavailable'), { name: 'InternalServiceError', $fault: 'server' });
    });
    const res = await info502();
    expect({ status: res.status, type: res.body.type }).toEqual({ status: 503, type: 'ProviderUnavailable' });
  });
});
