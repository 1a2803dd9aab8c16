import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEdgeLimits, defaultEdgeLimits, minAddressesToFillStage } from '../infra/edge.ts';
import { defaultStageThrottle, RegistrarStack } from '../infra/stack.ts';
import { loadStage } from '../infra/stages.ts';
import { defaultKeyLimits } from '../infra/usage-plan.ts';
import { gatewayAnswers } from '../shared/http/gateway-responses.ts';
import { authorizerTable, jobs, methodsOf, routes, type TableUse } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/**
 * The deployed stack's share of the hardening: per-key usage plans wired to the authorizer, least
 * privilege per function (read-only functions cannot write, by any action), encryption at rest and
 * point-in-time recovery. (test/infra.test.ts holds the general stack tests and cdk-nag.)
 */

const noBundling = { 'aws:cdk:bundling-stacks': [] };
let stack: RegistrarStack;
let template: Template;

beforeAll(() => {
  stack = new RegistrarStack(new App({ context: noBundling }), 'HardeningStack', { stage: loadStage('sandbox') });
  template = deployedTemplate(stack);
});

/** Every IAM statement granted to a function's role. */
function statementsOf(functionId: string): { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown }[] {
  const fn = stack.functions.get(functionId);
  if (!fn?.role) throw new Error(`no function ${functionId}`);
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
  const policies = template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('per-API-key rate limits in the stack', () => {
  it('takes the API key from the authorizer and requires it on every authenticated route, not on the public ones', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const routed = methods.filter((m) => m.Properties.AuthorizationType === 'CUSTOM');
    // Every route but the public API description (`auth: false`) goes through the authorizer, HEAD beside GET too.
    expect(routed).toHaveLength(routes.filter((r) => r.auth !== false).flatMap(methodsOf).length);
    for (const m of routed) expect(m.Properties.ApiKeyRequired).toBe(true);
    for (const m of methods.filter((m) => m.Properties.AuthorizationType !== 'CUSTOM')) expect(m.Properties.ApiKeyRequired).not.toBe(true);
  });

  it('has one usage plan on the stage with the per-key throttle and daily quota, and outputs its id', () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: defaultKeyLimits.rateLimit, BurstLimit: defaultKeyLimits.burstLimit },
      Quota: { Limit: defaultKeyLimits.quotaPerDay, Period: 'DAY' },
      ApiStages: [Match.objectLike({ ApiId: Match.anyValue(), Stage: Match.anyValue() })],
    });
    expect(defaultKeyLimits).toEqual({ rateLimit: 25, burstLimit: 50, quotaPerDay: 100_000 });
    template.hasOutput('UsagePlanId', Match.anyValue());
    // The stage limit still bounds the whole API above the per-key limit.
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: defaultStageThrottle.rateLimit, ThrottlingBurstLimit: defaultStageThrottle.burstLimit }),
      ]),
    });
  });

  it('takes other per-key numbers from the stack props or the cdk context', () => {
    const byProps = deployedTemplate(
      new RegistrarStack(new App({ context: noBundling }), 'Props', {
        stage: loadStage('sandbox'),
        keyLimits: { rateLimit: 5, burstLimit: 10, quotaPerDay: 1000 },
      }),
    );
    byProps.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 5, BurstLimit: 10 },
      Quota: { Limit: 1000, Period: 'DAY' },
    });
    const byContext = deployedTemplate(
      new RegistrarStack(
        new App({ context: { ...noBundling, keyRateLimit: '7', keyBurstLimit: '14', keyQuotaPerDay: '700' } }),
        'Context',
        { stage: loadStage('sandbox') },
      ),
    );
    byContext.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 7, BurstLimit: 14 },
      Quota: { Limit: 700, Period: 'DAY' },
    });
    expect(
      () => new RegistrarStack(new App({ context: { ...noBundling, keyRateLimit: 'lots' } }), 'Bad', { stage: loadStage('sandbox') }),
    ).toThrow(/keyRateLimit must be a positive integer/);
  }, 60_000);

  it('answers throttling, quota and unregistered keys in the contract shape, with Retry-After on 429', () => {
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED', 'INVALID_API_KEY'] as const) {
      const a = gatewayAnswers[type];
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(a.status),
        ResponseTemplates: { 'application/json': Match.stringLikeRegexp(`"type":"${a.type}"`) },
        ...(a.status === 429
          ? { ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': Match.stringLikeRegexp("'\\d+'") }) }
          : {}),
      });
    }
  });
});

describe('least privilege, encryption at rest, point-in-time recovery', () => {
  it('grants every function exactly the table actions its route-table entry declares, in one statement, and never Scan', () => {
    const declared: [string, TableUse | undefined][] = [
      ...routes.map((r) => [r.id, r.table] as [string, TableUse | undefined]),
      ...jobs.map((j) => [j.id, j.table] as [string, TableUse | undefined]),
      ['authorizer', authorizerTable],
    ];
    for (const [id, use] of declared) {
      const dynamo = statementsOf(id).filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
      if (!use) {
        expect(dynamo, id).toEqual([]);
        continue;
      }
      expect(dynamo, id).toHaveLength(1);
      const actions = [dynamo[0]?.Action].flat();
      expect(actions.sort(), id).toEqual(use.actions.map((a) => `dynamodb:${a}`).sort());
      expect(actions, id).not.toContain('dynamodb:Scan');
      expect(JSON.stringify(dynamo[0]?.Resource).includes('/index/*'), id).toBe(use.index === true);
    }
  });

  it('limits the authorizer to API keys, the rates job to exchange rates, and each reading route to its kinds of item (LeadingKeys)', () => {
    const leadingKeys = (id: string) =>
      statementsOf(id).find((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')))?.Condition ?? 'no condition';
    const only = (...prefixes: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes } });
    expect(leadingKeys('authorizer')).toEqual(only('APIKEY#*'));
    // ... and to its own last run (the health route reads it: shared/db/repositories/job-runs.ts).
    expect(leadingKeys('exchange-rates')).toEqual(only('RATES#*', 'JOBRUN*'));
    expect(leadingKeys('provider-info')).toEqual(only('PROVIDER#*'));
    // ... and its snapshot, which a request rebuilds when the list changed (shared/pricing/price-list-snapshot.ts).
    expect(leadingKeys('pricelist')).toEqual(only('PRICELIST#*', 'RATES#*', 'PRICESNAPSHOT#*'));
    expect(leadingKeys('zone')).toEqual(only('DOMAIN#*'));
    expect(leadingKeys('process-info')).toEqual(only('PROCESS#*', 'CA#*'));
    // The rates job parses XML from the internet: it may neither delete nor write in batches.
    expect([statementsOf('exchange-rates').flatMap((s) => [s.Action].flat())].flat().sort()).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query']),
    );
    expect(
      statementsOf('exchange-rates')
        .flatMap((s) => [s.Action].flat())
        .filter((a) => /Delete|BatchWrite|Update/.test(a)),
    ).toEqual([]);
  });

  it('grants no wildcard action and no dynamodb:* to any function', () => {
    for (const id of [...routes.map((r) => r.id), ...jobs.map((j) => j.id), 'authorizer']) {
      const actions = statementsOf(id).flatMap((s) => [s.Action].flat());
      expect(
        actions.filter((a) => a === '*' || a.endsWith(':*')),
        id,
      ).toEqual([]);
    }
  });

  it('scopes every table grant to the one table and its indexes', () => {
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as never);
    for (const id of [...routes.map((r) => r.id), ...jobs.map((j) => j.id), 'authorizer']) {
      for (const s of statementsOf(id).filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')))) {
        expect(JSON.stringify(s.Resource), id).toContain(tableId);
      }
    }
  });

  it('encrypts the table and the generated secrets at rest and keeps point-in-time recovery on', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    // Secrets Manager encrypts every secret with KMS (the AWS managed key unless one is named).
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  });
});

describe('the public edge', () => {
  it('puts a WAF web ACL with per-IP rate rules in front of the stage, answering 429 in the contract shape', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    expect(acl.Scope).toBe('REGIONAL');
    const rules = acl.Rules as { Name: string; Statement: { RateBasedStatement: Record<string, unknown> }; Action: unknown }[];
    expect(rules.map((r) => [r.Name, r.Statement.RateBasedStatement.Limit, r.Statement.RateBasedStatement.AggregateKeyType])).toEqual([
      ['NoKeyPerIp', defaultEdgeLimits.publicPerIp, 'IP'],
      ['AllPathsPerIp', defaultEdgeLimits.allPerIp, 'IP'],
    ]);
    expect(defaultEdgeLimits).toEqual({ publicPerIp: 300, allPerIp: 15_000 });
    for (const r of rules) {
      expect(r.Action).toEqual({
        Block: {
          CustomResponse: {
            ResponseCode: 429,
            CustomResponseBodyKey: 'TooManyRequests',
            ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
          },
        },
      });
    }
    expect(JSON.parse(acl.CustomResponseBodies.TooManyRequests.Content)).toEqual({
      type: 'TooManyRequests',
      message: 'Too many requests from your address; retry later.',
    });
    const stageId = stack.getLogicalId(stack.api.deploymentStage.node.defaultChild as never);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      ResourceArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([Match.objectLike({ Ref: stageId })])]) }),
      WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('EdgeWebAcl'), 'Arn'] },
    });
  });

  it('scopes the tight rule by whether a key was presented, not by path: any method, any path, without a key', () => {
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    const scopeDown = acl.Rules[0].Statement.RateBasedStatement.ScopeDownStatement;
    const presented = scopeDown.NotStatement.Statement.RegexMatchStatement;
    expect(presented.FieldToMatch).toEqual({ SingleHeader: { Name: 'authorization' } });
    expect(JSON.stringify(scopeDown)).not.toMatch(/UriPath/);
    const keyed = (header: string) => new RegExp(presented.RegexString).test(header);
    expect(keyed(`ApiKey ${'k'.repeat(40)}`)).toBe(true);
    // No key, or not of a key's form: the tight limit, whatever the method and path.
    for (const header of ['', 'Bearer abc', 'ApiKey ', 'ApiKey a b']) expect(keyed(header), header).toBe(false);
  });

  it('takes at least ten addresses at their per-IP limit to fill the stage throttle, and refuses a per-IP limit that two could', () => {
    const perIp = defaultEdgeLimits.allPerIp / 300;
    expect(defaultStageThrottle.rateLimit / perIp).toBeGreaterThanOrEqual(minAddressesToFillStage);
    expect(() => checkEdgeLimits({ publicPerIp: 300, allPerIp: 15_000 }, 100)).toThrow(/2 addresses take the stage throttle/);
    expect(
      () =>
        new RegistrarStack(new App({ context: noBundling }), 'TwoAddresses', {
          stage: loadStage('sandbox'),
          throttle: { rateLimit: 100, burstLimit: 200 },
        }),
    ).toThrow(/addresses take the stage throttle/);
  });

  it('answers unknown paths and methods at the gateway, without a function: no unauthenticated method reaches a Lambda but the public routes (API description, health)', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const open = methods.filter((m) => m.Properties.AuthorizationType === 'NONE');
    const publicFns = routes
      .filter((r) => r.auth === false)
      .map((r) => stack.getLogicalId(stack.functions.get(r.id)?.node.defaultChild as never));
    expect(publicFns.length).toBe(2);
    for (const m of open) {
      if (m.Properties.Integration.Type === 'AWS_PROXY') {
        const uri = JSON.stringify(m.Properties.Integration.Uri);
        expect(
          publicFns.some((fn) => uri.includes(fn)),
          uri,
        ).toBe(true);
      } else expect(m.Properties.Integration.Type).toBe('MOCK');
    }
    // No catch-all resource: a path no route serves has no resource, and API Gateway answers 404.
    const resources = Object.values(template.findResources('AWS::ApiGateway::Resource'));
    expect(resources.filter((r) => String(r.Properties.PathPart).includes('+'))).toEqual([]);
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"type":"NotFound"') },
    });
    // Another method on a route's path: 405 with Allow, from a mock.
    const any = methods.filter((m) => m.Properties.HttpMethod === 'ANY');
    expect(any).toHaveLength(new Set(routes.map((r) => r.path)).size);
    for (const m of any) {
      const response = m.Properties.Integration.IntegrationResponses[0];
      expect(response.StatusCode).toBe('405');
      expect(response.ResponseParameters['method.response.header.Allow']).toMatch(/^'[A-Z]+(, [A-Z]+)*'$/);
      expect(JSON.parse(response.ResponseTemplates['application/json'])).toMatchObject({ type: 'MethodNotAllowed' });
    }
    expect(stack.functions.has('fallback')).toBe(false);
  });

  it('takes other per-IP limits from the cdk context', () => {
    const byContext = deployedTemplate(
      new RegistrarStack(new App({ context: { ...noBundling, publicIpRateLimit: '60', ipRateLimit: '6000' } }), 'Edge', {
        stage: loadStage('sandbox'),
      }),
    );
    const rules = Object.values(byContext.findResources('AWS::WAFv2::WebACL'))[0]?.Properties.Rules;
    expect(rules.map((r: { Statement: { RateBasedStatement: { Limit: number } } }) => r.Statement.RateBasedStatement.Limit)).toEqual([
      60, 6000,
    ]);
  }, 60_000);
});

describe('access logs', () => {
  it("name the caller of every request: the key's customer and user, its usage-plan key, and the address", () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]?.Properties;
    const format = JSON.parse(stage.AccessLogSetting.Format);
    expect(format).toMatchObject({
      caller: '$context.authorizer.principalId',
      customer: '$context.authorizer.customer',
      user: '$context.authorizer.user',
      apiKeyId: '$context.identity.apiKeyId',
      ip: '$context.identity.sourceIp',
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });
});

describe('the key that seals webhook secrets', () => {
  const kmsActionsOf = (id: string) =>
    statementsOf(id)
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
      .filter((a) => a.startsWith('kms:'))
      .sort();

  it('is a KMS key of the stack with rotation on, retained', () => {
    template.hasResource('AWS::KMS::Key', { Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });

  it('grants GenerateDataKey to the functions that seal (put, rotate), Decrypt to those that sign (deliver, retry), and no KMS action to any other', () => {
    const expected: Record<string, string[]> = {
      'webhook-put': ['kms:GenerateDataKey'],
      'webhook-rotate': ['kms:GenerateDataKey'],
      'webhook-deliver': ['kms:Decrypt'],
      'webhook-retry': ['kms:Decrypt'],
    };
    for (const id of stack.functions.keys()) expect(kmsActionsOf(id), id).toEqual(expected[id] ?? []);
    const keyArn = { 'Fn::GetAtt': [stack.getLogicalId(stack.webhookSecretsKey.node.defaultChild as never), 'Arn'] };
    for (const id of Object.keys(expected)) {
      const statement = statementsOf(id).find((s) => String(s.Action).startsWith('kms:'));
      // The key itself (the routes' nested stacks receive its ARN as a parameter, resolved here).
      expect(JSON.stringify(statement?.Resource), id).toBe(JSON.stringify(keyArn));
    }
  });
});
