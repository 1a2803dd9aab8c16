import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage } from '../infra/stages.ts';
import { apiKeyHeaderPattern } from '../shared/auth/api-keys.ts';
import { table } from '../shared/db/table.ts';
import { gatewayAnswers } from '../shared/http/gateway-responses.ts';
import { authorizerCacheSeconds, jobs, methodsOf, routes, streamConsumers } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';

let app: App;
let stack: RegistrarStack;
let template: Template;

beforeAll(() => {
  // Bundling is skipped here (it is exercised by `npm run synth` in CI); the template is the same.
  app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new RegistrarStack(app, 'TestStack', { stage: loadStage('sandbox') });
  template = deployedTemplate(stack);
});

describe('CDK stack', () => {
  it('defines the single table from the shared definition, with PITR, TTL, deletion protection and retain', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
        SSESpecification: { SSEEnabled: true },
        GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((g) =>
          Match.objectLike({
            IndexName: g.indexName,
            KeySchema: [
              { AttributeName: g.partitionKey, KeyType: 'HASH' },
              { AttributeName: g.sortKey, KeyType: 'RANGE' },
            ],
            Projection: {
              ProjectionType: g.projection,
              ...('nonKeyAttributes' in g ? { NonKeyAttributes: [...g.nonKeyAttributes] } : {}),
            },
          }),
        ),
      }),
    });
  });

  it('has one Node 24 arm64 function per route and job, plus the authorizer', () => {
    const fns = template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs24.x' } });
    // The stream consumers are functions too (the zone sync).
    expect(Object.keys(fns)).toHaveLength(routes.length + jobs.length + streamConsumers.length + 1);
    for (const f of Object.values(fns)) {
      expect(f.Properties.Architectures).toEqual(['arm64']);
      expect(f.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(f.Properties.Environment.Variables.TABLE_NAME).toBeDefined();
    }
    for (const route of routes) expect(stack.functions.has(route.id)).toBe(true);
    for (const job of jobs) expect(stack.functions.has(job.id)).toBe(true);
  });

  it('wires every route of the route table, and HEAD beside each GET, to its function behind the API-key authorizer', () => {
    const methods = template.findResources('AWS::ApiGateway::Method', { Properties: { AuthorizationType: 'CUSTOM' } });
    const authenticated = routes.filter((r) => r.auth !== false);
    expect(authenticated.length).toBeGreaterThanOrEqual(6);
    expect(Object.keys(methods)).toHaveLength(authenticated.flatMap(methodsOf).length);
    for (const route of authenticated) {
      const fn = stack.functions.get(route.id);
      const fnId = stack.getLogicalId(fn?.node.defaultChild as never);
      for (const method of methodsOf(route)) {
        const match = Object.values(methods).find(
          (m) => m.Properties.HttpMethod === method && JSON.stringify(m.Properties.Integration.Uri).includes(fnId),
        );
        expect(match, `${method} ${route.path}`).toBeDefined();
        expect(match?.Properties.ApiKeyRequired, `${method} ${route.path}`).toBe(true);
      }
    }
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: authorizerCacheSeconds,
      // The scheme in any case (RFC 9110): the same pattern the local gateway applies.
      IdentityValidationExpression: apiKeyHeaderPattern.source,
    });
  });

  it("gives each route's function one invoke permission, for this API's stage and the route's path, none per method or for the console's test", () => {
    const permissions = Object.values(
      template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }),
    );
    // One a route, and the authorizer's.
    expect(permissions).toHaveLength(routes.length + 1);
    const apiId = stack.getLogicalId(stack.api.node.defaultChild as never);
    for (const route of routes) {
      const fnId = stack.getLogicalId(stack.functions.get(route.id)?.node.defaultChild as never);
      const own = permissions.filter((p) => JSON.stringify(p.Properties.FunctionName).includes(`"${fnId}"`));
      expect(own, route.id).toHaveLength(1);
      const [, parts] = (own[0] as { Properties: { SourceArn: { 'Fn::Join': [string, unknown[]] } } }).Properties.SourceArn['Fn::Join'];
      expect(parts, route.id).toContainEqual({ Ref: apiId });
      expect(parts.at(-1), route.id).toBe(`/sandbox/*${route.path.replace(/\{[^}]+\}/g, '*')}`);
    }
    expect(JSON.stringify(permissions)).not.toContain('test-invoke-stage');
  });

  it('tells only the functions that declare a generated secret where it is, never its value', () => {
    const fns = template.findResources('AWS::Lambda::Function');
    for (const route of routes) {
      const fn = stack.functions.get(route.id);
      const variables = fns[stack.getLogicalId(fn?.node.defaultChild as never)]?.Properties.Environment.Variables;
      expect(variables.ONE_TIME_LINK_SECRET, route.id).toBeUndefined();
      if (route.secrets?.includes('ONE_TIME_LINK_SECRET'))
        expect(variables.ONE_TIME_LINK_SECRET_ARN, route.id).toEqual({ Ref: expect.any(String) });
      else expect(variables.ONE_TIME_LINK_SECRET_ARN, route.id).toBeUndefined();
    }
    expect(JSON.stringify(template.toJSON())).not.toContain('resolve:secretsmanager');
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  });

  it('throttles the stage, writes access logs and answers gateway errors in the contract shape', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 })]),
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      TracingEnabled: true,
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: '401',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"type":"AuthenticationError"') },
    });
    template.hasOutput('ApiUrl', Match.anyValue());
  });

  it("answers with API Gateway's own refusals the request id, no-store, nosniff, and on a 401 the ApiKey challenge", () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(responses.map((r) => r.Properties.ResponseType).sort()).toEqual(Object.keys(gatewayAnswers).sort());
    for (const { Properties: p } of responses) {
      expect(p.ResponseParameters, p.ResponseType).toMatchObject({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.Cache-Control': "'no-store'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      });
      expect(JSON.parse(p.ResponseTemplates['application/json']).requestId, p.ResponseType).toBe('$context.requestId');
    }
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      ResponseParameters: Match.objectLike({ 'gatewayresponse.header.WWW-Authenticate': "'ApiKey'" }),
    });
  });

  it("passes the functions' compressed answers through as bytes: every media type binary, no compression of its own", () => {
    const [api] = Object.values(template.findResources('AWS::ApiGateway::RestApi'));
    expect(api?.Properties.BinaryMediaTypes).toEqual(['*/*']);
    expect(api?.Properties).not.toHaveProperty('MinimumCompressionSize');
    // Buffered Lambda proxy integrations: the 6 MB response limit the functions answer within (406 ResponseTooLarge).
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    expect(
      methods
        .filter((m) => m.Properties.Integration.Type !== 'MOCK')
        .every((m) => m.Properties.Integration.Type === 'AWS_PROXY' && m.Properties.Integration.ResponseTransferMode === undefined),
    ).toBe(true);
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'DEFAULT_5XX',
      StatusCode: '500',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"type":"InternalError"') },
    });
  });

  it('serves GET /v2/openapi.json without the authorizer, from a function without table access', () => {
    const fnId = stack.getLogicalId(stack.functions.get('openapi')?.node.defaultChild as never);
    for (const HttpMethod of ['GET', 'HEAD']) {
      const methods = Object.values(
        template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod, AuthorizationType: 'NONE' } }),
      );
      expect(
        methods.filter((m) => JSON.stringify(m.Properties.Integration.Uri).includes(fnId)),
        HttpMethod,
      ).toHaveLength(1);
    }
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'openapi.json' });
  });

  it("alarms on the 5xx rate, Lambda and DynamoDB throttles, each job's failures and stale exchange rates, all to one topic", () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const topicId = stack.getLogicalId(stack.observability.topic.node.defaultChild as never);
    for (const a of alarms) {
      expect(a.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(a.Properties.AlarmDescription).toMatch(/\w+/);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Threshold: 0.05,
      Period: 300,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Threshold: 0 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ Namespace: 'AWS/DynamoDB', MetricName: 'ThrottledRequests' }) }),
        }),
      ]),
    });
    for (const job of jobs) {
      const fnId = stack.getLogicalId(stack.functions.get(job.id)?.node.defaultChild as never);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
        Threshold: 1,
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Registrar',
      MetricName: 'ExchangeRateAgeHours',
      Statistic: 'Maximum',
      Period: 86400,
      Threshold: 120,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
    });
    // The DNS provider refusing a zone push (docs/dns.md).
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Registrar',
      MetricName: 'DnsPushRefused',
      Statistic: 'Sum',
      Threshold: 1,
    });
    // Each stream consumer's on-failure queue (and a queue-fed one's dead-letter queue), and the DNS refusals.
    const queueFed = streamConsumers.filter((c) => c.queue).length;
    expect(alarms).toHaveLength(3 + jobs.length + 1 + streamConsumers.length + queueFed + 1);
  });

  it('has a dashboard with requests, errors and latency per route, the API, Lambda, DynamoDB, the jobs and the alarms', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    for (const name of ['Count', '4XXError', '5XXError', 'Latency', 'ExchangeRateAgeHours', 'ThrottledRequests'])
      expect(body, name).toContain(name);
    // Per route: API Gateway's detailed metrics, by method and resource, which the stage enables.
    for (const route of routes) {
      expect(body, route.id).toContain(`\\"Method\\",\\"${route.method}\\",\\"Resource\\",\\"${route.path}\\"`);
    }
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ MetricsEnabled: true, HttpMethod: '*', ResourcePath: '/*' })]),
    });
    expect(body).toContain('alarm');
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged with a reason', () => {
    const nagApp = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: mkdtempSync(join(tmpdir(), 'nag-')) });
    const nagStack = new RegistrarStack(nagApp, 'NagStack', { stage: loadStage('sandbox') });
    // Without the acknowledgments the rules do fire: the check is real.
    expect(new AwsSolutionsChecks(nagApp).validateScope(nagStack).violations.length).toBeGreaterThan(0);
    Validations.of(nagApp).addPlugins(new AwsSolutionsChecks(nagApp));
    expect(() => nagApp.synth()).not.toThrow();
    const report = JSON.parse(readFileSync(join(nagApp.outdir, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((r: { pluginName: string }) => r.pluginName === 'AwsSolutions');
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
    expect(nag.suppressedViolations.length).toBeGreaterThan(0);
    // The stage has its WAF web ACL now: no acknowledgment stands in for it.
    expect(JSON.stringify(nag.suppressedViolations)).not.toContain('APIG3');
    for (const s of nag.suppressedViolations) expect(s.reason, s.ruleName).toMatch(/\w{3,}.*\w{3,}/);
  });
});
