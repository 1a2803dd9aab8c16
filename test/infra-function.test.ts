import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { type FunctionDeclaration, RegistrarFunction } from '../infra/function.ts';
import { StackSecrets } from '../infra/secrets.ts';
import { loadStage } from '../infra/stages.ts';

/** A bare stack with one table and the given functions (bundling skipped, as in test/infra.test.ts). */
function synth(declarations: Record<string, FunctionDeclaration>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'FunctionTest');
  const table = new dynamodb.Table(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
  const secrets = new StackSecrets(stack);
  const fns = Object.fromEntries(
    Object.entries(declarations).map(([id, declaration]) => [
      id,
      new RegistrarFunction(stack, id, {
        declaration,
        table,
        secrets,
        stage: loadStage('sandbox'),
        sharedEnvironment: { POWERTOOLS_LOG_LEVEL: 'DEBUG' },
      }),
    ]),
  );
  const template = Template.fromStack(stack);
  /** The function's IAM statements on the table. */
  const statements = (id: string): { Action: string | string[] }[] => {
    const roleId = stack.getLogicalId(fns[id]?.role?.node.defaultChild as never);
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }));
    return policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
  };
  const environment = (id: string): Record<string, unknown> =>
    template.toJSON().Resources[stack.getLogicalId(fns[id]?.node.defaultChild as never)].Properties.Environment.Variables;
  return { template, statements, environment };
}

describe('RegistrarFunction', () => {
  it('grants the table actions its declaration names, on gsi1 only when it queries it, limited to the kinds of item it names', () => {
    const { statements } = synth({
      keys: { dir: 'openapi', table: { actions: ['GetItem'], only: ['apiKey'] } },
      writer: { dir: 'openapi', table: { actions: ['Query', 'PutItem', 'ConditionCheckItem'], index: true } },
      stranger: { dir: 'openapi' },
    });
    expect(statements('keys')).toEqual([
      {
        Action: 'dynamodb:GetItem',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] } },
      },
    ]);
    expect(statements('writer')).toEqual([
      {
        Action: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
        Effect: 'Allow',
        Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] }, { 'Fn::Join': ['', [expect.anything(), '/index/*']] }],
      },
    ]);
    expect(statements('stranger')).toEqual([]);
    expect(() => synth({ typo: { dir: 'openapi', table: { actions: ['GetItem'], only: ['apikey'] } } })).toThrow(
      /Unknown kind of item 'apikey'/,
    );
  }, 60_000);

  it('layers the environment: defaults, then the shared environment, then its own, then where its secrets are', () => {
    const { environment, template } = synth({
      renew: {
        dir: 'openapi',
        environment: { POWERTOOLS_LOG_LEVEL: 'WARN', EXTRA_SETTING: '1' },
        secrets: ['ONE_TIME_LINK_SECRET'],
      },
      other: { dir: 'openapi', secrets: ['ONE_TIME_LINK_SECRET'] },
    });
    expect(environment('renew')).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'registrar',
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      EXTRA_SETTING: '1',
    });
    expect(environment('renew')).toHaveProperty('TABLE_NAME');
    expect(environment('renew').ONE_TIME_LINK_SECRET_ARN).toEqual({ Ref: expect.stringMatching(/^SecretONETIMELINKSECRET/) });
    expect(environment('renew').ONE_TIME_LINK_SECRET).toBeUndefined();
    expect(environment('other').POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
    // Two functions declaring the same secret share one generated secret.
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  }, 60_000);
});
