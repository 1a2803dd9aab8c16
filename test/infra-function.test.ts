import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { type FunctionDeclaration, RegistrarFunction } from '../infra/function.ts';
import { StackSecrets } from '../infra/secrets.ts';

/** A bare stack with one table and the given functions (bundling skipped, as in test/infra.test.ts). */
function synth(declarations: Record<string, FunctionDeclaration>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'FunctionTest');
  const table = new dynamodb.Table(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
  const secrets = new StackSecrets(stack);
  const fns = Object.fromEntries(
    Object.entries(declarations).map(([id, declaration]) => [
      id,
      new RegistrarFunction(stack, id, { declaration, table, secrets, sharedEnvironment: { POWERTOOLS_LOG_LEVEL: 'DEBUG' } }),
    ]),
  );
  const template = Template.fromStack(stack);
  const dynamoActions = (id: string): string[] => {
    const roleId = stack.getLogicalId(fns[id]?.role?.node.defaultChild as never);
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }));
    return policies
      .flatMap((p) => (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => [s.Action].flat()))
      .filter((a) => a.startsWith('dynamodb:'));
  };
  const environment = (id: string): Record<string, unknown> =>
    template.toJSON().Resources[stack.getLogicalId(fns[id]?.node.defaultChild as never)].Properties.Environment.Variables;
  return { template, dynamoActions, environment };
}

describe('RegistrarFunction', () => {
  it('grants the table access its declaration names: read only, read and write, or none', () => {
    const { dynamoActions } = synth({
      reader: { dir: 'fallback', access: 'read' },
      writer: { dir: 'fallback', access: 'readwrite' },
      stranger: { dir: 'fallback', access: 'none' },
    });
    expect(dynamoActions('reader')).toContain('dynamodb:GetItem');
    expect(dynamoActions('reader').filter((a) => /Put|Update|Delete|Write/.test(a))).toEqual([]);
    expect(dynamoActions('writer')).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
    expect(dynamoActions('stranger')).toEqual([]);
  });

  it('layers the environment: defaults, then the shared environment, then its own, then its secrets', () => {
    const { environment, template } = synth({
      renew: {
        dir: 'fallback',
        access: 'none',
        environment: { POWERTOOLS_LOG_LEVEL: 'WARN', EXTRA_SETTING: '1' },
        secrets: ['ONE_TIME_LINK_SECRET'],
      },
      other: { dir: 'fallback', access: 'none', secrets: ['ONE_TIME_LINK_SECRET'] },
    });
    expect(environment('renew')).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'registrar',
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      EXTRA_SETTING: '1',
    });
    expect(environment('renew')).toHaveProperty('TABLE_NAME');
    expect(JSON.stringify(environment('renew').ONE_TIME_LINK_SECRET)).toContain('resolve:secretsmanager');
    expect(environment('other').POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
    // Two functions declaring the same secret share one generated secret.
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
  });
});
