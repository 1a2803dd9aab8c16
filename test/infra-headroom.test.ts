import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { IConstruct } from 'constructs';
import { afterAll, describe, expect, it } from 'vitest';
import { headroomLines, resourceCounts, type StackResources } from '../infra/headroom.ts';
import { featureOf, methodsInRoot, routeStacks, routesPerStack } from '../infra/route-groups.ts';
import { RegistrarStack } from '../infra/stack.ts';
import { loadStage, stageNames } from '../infra/stages.ts';
import { type Route, routes } from '../shared/routes.ts';
import { deployedTemplate } from './support/stack-templates.ts';

/**
 * Room for 200 routes: every stack deployed (the root and each routes stack) stays well under
 * CloudFormation's 500 resources on every stage, with today's routes and with 150 more.
 */

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** 150 GET routes of one feature: the worst case, one feature taking them all (its stack splits). */
const synthetic: Route[] = Array.from({ length: 150 }, (_, i) => ({
  id: `synthetic-${i}`,
  method: 'GET',
  path: `/v2/domains/{domainName}/synthetic-${i}`,
  dir: 'openapi',
  table: { actions: ['Query'], only: ['domain'] },
  summary: `Synthetic route ${i}`,
}));

function synth(stageName: string, table: readonly Route[]): { stack: RegistrarStack; counts: StackResources[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'headroom-'));
  folders.push(outdir);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir });
  const stack = new RegistrarStack(app, `Registrar-${stageName}`, { stage: loadStage(stageName), routes: table });
  app.synth();
  return { stack, counts: resourceCounts(stack, outdir) };
}

describe('room for 200 routes', () => {
  it('names the stages it checks: every stage file', () => {
    expect(stageNames()).toEqual(['production', 'sandbox', 'sandbox-upstream-ote']);
  });

  for (const stageName of stageNames()) {
    it(`${stageName}: every deployed stack under 400 resources with today's routes, under 450 with 150 more`, () => {
      const today = synth(stageName, routes);
      console.log(`${stageName}, today's ${routes.length} routes:\n${headroomLines(today.counts).join('\n')}`);
      expect(today.counts.length).toBeGreaterThan(1);
      for (const c of today.counts) expect(c.resources, c.stack).toBeLessThanOrEqual(400);

      const grown = synth(stageName, [...routes, ...synthetic]);
      console.log(`${stageName}, ${routes.length + synthetic.length} routes:\n${headroomLines(grown.counts).join('\n')}`);
      for (const c of grown.counts) expect(c.resources, c.stack).toBeLessThan(450);
      // The 150 fill their feature's stack and the next ones, 40 routes each, and every one is deployed.
      const domains = [...routes, ...synthetic].filter((r) => featureOf(r.path) === 'domains').length;
      expect(grown.counts.filter((c) => /\/RoutesDomains\d*$/.test(c.stack))).toHaveLength(Math.ceil(domains / routesPerStack));
      const functions = deployedTemplate(grown.stack).findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs24.x' } });
      expect(Object.keys(functions).length).toBeGreaterThanOrEqual(routes.length + synthetic.length);
    }, 300_000);
  }
});

describe('what an existing deployment keeps', () => {
  it('keeps the table, its stream consumers, queues, secrets, keys and API under their logical ids in the root stack', () => {
    const { stack } = synth('production', routes);
    const root = Template.fromStack(stack).toJSON();
    // The logical ids these had in the single stack (production: the stage with every kind of them).
    const kept = {
      TableCD117FA1: 'AWS::DynamoDB::Table',
      SecretONETIMELINKSECRET819FAA94: 'AWS::SecretsManager::Secret',
      SecretRTRAPIKEY2C2E0AA3: 'AWS::SecretsManager::Secret',
      SecretACMEEABHMACKEY4D522C9D: 'AWS::SecretsManager::Secret',
      Route53DnssecKey7813B5BD: 'AWS::KMS::Key',
      ApiF70053CD: 'AWS::ApiGateway::RestApi',
      ApiDeploymentStageproductionA7298FD9: 'AWS::ApiGateway::Stage',
      ApiKeyAuthorizerD0BEAC37: 'AWS::ApiGateway::Authorizer',
      ApiKeyUsagePlan37651CA1: 'AWS::ApiGateway::UsagePlan',
      CustomDomain21DD44B6: 'AWS::ApiGateway::DomainName',
      CustomDomainMapping5B2D34AB: 'AWS::ApiGateway::BasePathMapping',
      zonesyncDynamoDBEventSourceRegistrarproductionTableF50172580B6DCE8D: 'AWS::Lambda::EventSourceMapping',
      zonesyncstreamfailures45074BC6: 'AWS::SQS::Queue',
      webhookdeliverqueue6FC881BE: 'AWS::SQS::Queue',
      webhookdeliverdeadletters73F9FEC4: 'AWS::SQS::Queue',
      webhookdeliverpipefailures54C1C7E1: 'AWS::SQS::Queue',
      webhookdeliverpipe: 'AWS::Pipes::Pipe',
      EdgeWebAcl: 'AWS::WAFv2::WebACL',
    };
    for (const [id, type] of Object.entries(kept)) expect(root.Resources[id]?.Type, id).toBe(type);
    // The table keeps its indexes and its stream.
    expect(root.Resources.TableCD117FA1.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(root.Resources.TableCD117FA1.Properties.GlobalSecondaryIndexes.length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it("keeps the methods of the routes deployed before in the root stack, each route's function in its feature's stack, and a new route's methods in its stack", () => {
    const { stack } = synth('sandbox', [...routes, ...synthetic.slice(0, 1)]);
    const stackOf = (c: IConstruct) => (Stack.of(c) === stack ? 'root' : Stack.of(c).node.id);
    const stacks = routeStacks([...routes, ...synthetic.slice(0, 1)]);
    for (const [stackId, members] of stacks) {
      for (const route of members) expect(stackOf(stack.functions.get(route.id) as IConstruct), route.id).toBe(stackId);
    }
    const methods = stack.node.findAll().filter((c): c is apigateway.Method => c instanceof apigateway.Method);
    for (const route of routes) {
      const own = methods.filter((m) => m.resource.path === route.path && m.httpMethod === route.method);
      expect(own.length, route.id).toBeGreaterThan(0);
      for (const m of own) expect(stackOf(m) === 'root', route.id).toBe(methodsInRoot.has(route.id));
    }
    // A method added in a nested stack makes a new deployment of the stage, after its stack.
    const deployment = (t: Template) =>
      Object.entries(t.findResources('AWS::ApiGateway::Deployment'))[0] as [string, { DependsOn: string[] }];
    const [before] = deployment(Template.fromStack(synth('sandbox', routes).stack));
    const [after, { DependsOn }] = deployment(Template.fromStack(stack));
    expect(after).not.toBe(before);
    expect(DependsOn.some((d) => d.startsWith('RoutesDomainsNestedStack'))).toBe(true);
    const added = methods.filter((m) => m.resource.path === synthetic[0]?.path);
    expect(added.map((m) => [m.httpMethod, stackOf(m)]).sort()).toEqual([
      ['ANY', 'RoutesDomains'],
      ['GET', 'RoutesDomains'],
      ['HEAD', 'RoutesDomains'],
    ]);
  }, 120_000);
});
