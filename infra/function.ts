import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type KeyKind, keyKinds } from '../shared/db/keys.ts';
import { functionTimeoutSeconds } from '../shared/http/function-budget.ts';
import type { Integration, StackSecret, TableUse } from '../shared/routes.ts';
import { lambdaBundling } from './bundling.ts';
import { dataKeyUse } from './data-keys.ts';
import type { StackSecrets } from './secrets.ts';
import { implementationsOf, integrationEnvironment, integrationHanded, type Stage } from './stages.ts';

const root = join(import.meta.dirname, '..');

/** What a function declares about itself: a route or a job of the route table, the authorizer. */
export interface FunctionDeclaration {
  /** Folder under functions/ holding `handler.ts`. */
  dir: string;
  /** What the function does to the table (least privilege); absent: no access at all. */
  table?: TableUse;
  environment?: Record<string, string>;
  secrets?: readonly StackSecret[];
  integrations?: readonly Integration[];
  namesOnly?: readonly Integration[];
  /** Its actions on the webhook secrets key (shared/routes.ts, Reach). */
  dataKeys?: readonly ('GenerateDataKey' | 'Decrypt')[];
}

/** The integrations a function calls: those it works with but does not only name. */
export function callsOf(declaration: FunctionDeclaration): Integration[] {
  return (declaration.integrations ?? []).filter((integration) => !declaration.namesOnly?.includes(integration));
}

export interface RegistrarFunctionProps {
  declaration: FunctionDeclaration;
  table: dynamodb.ITable;
  secrets: StackSecrets;
  /** The stage: which implementation of each integration the function is handed. */
  stage: Stage;
  /** Environment every function of the stack gets (e.g. POWERTOOLS_LOG_LEVEL); a declaration's own wins. */
  sharedEnvironment?: Record<string, string>;
  /** The ARN of the webhook secrets key, for a function that declares `dataKeys`. */
  dataKeyArn?: string;
}

/**
 * One function of the service, configured alike (Node 24 on arm64, X-Ray, a log group kept a
 * month, the shared bundling) and granted exactly the table access its declaration names.
 */
export class RegistrarFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: RegistrarFunctionProps) {
    const { declaration, table } = props;
    // Secrets, then the log group, then the function: the order the stack has always created them
    // in, which keeps the synthesized template identical.
    // Each integration the function calls hands it its implementation's settings and secrets (the
    // stage file, infra/stages.ts); one it only names (`namesOnly`) hands it nothing.
    const called = callsOf(declaration);
    const handed = called.map((integration) => integrationHanded(props.stage, integration));
    const secrets = [...new Set([...(declaration.secrets ?? []), ...handed.flatMap((h) => h.secrets)])];
    const secretEnvironment = props.secrets.environment(secrets);
    const dataKeys = dataKeyUse(declaration, props.dataKeyArn);
    const logGroup = new logs.LogGroup(scope, `${id}-logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: join(root, 'functions', declaration.dir, 'handler.ts'),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.seconds(functionTimeoutSeconds),
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        TABLE_NAME: table.tableName,
        POWERTOOLS_SERVICE_NAME: 'registrar',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.sharedEnvironment,
        ...declaration.environment,
        ...integrationEnvironment(props.stage, declaration.integrations),
        ...Object.assign({}, ...handed.map((h) => h.environment)),
        ...secretEnvironment,
        ...dataKeys?.environment,
      },
      // Shared with the benchmark (bench/), which weighs and times the very same bundles.
      bundling: lambdaBundling({ ...implementationsOf(props.stage), worksWithAuthority: called.includes('authority') }),
    });
    for (const statement of [tableStatement(table, declaration.table), props.secrets.readStatement(secrets), dataKeys?.statement]) {
      if (statement) this.addToRolePolicy(statement);
    }
  }
}

/**
 * The one statement granting what a function declares it does to the table: its actions, on the
 * table (and gsi1 when it queries the index), limited to the partitions of the kinds of item it
 * names in `only` (dynamodb:LeadingKeys). Nothing for a function without table use.
 */
export function tableStatement(table: dynamodb.ITable, use: TableUse | undefined): iam.PolicyStatement | undefined {
  if (!use) return undefined;
  const prefixes = (use.only ?? []).map((kind) => {
    if (!(kind in keyKinds)) throw new Error(`Unknown kind of item '${kind}'; known: ${Object.keys(keyKinds).join(', ')}`);
    return `${keyKinds[kind as KeyKind]}*`;
  });
  return new iam.PolicyStatement({
    actions: use.actions.map((action) => `dynamodb:${action}`),
    resources: [table.tableArn, ...(use.index ? [`${table.tableArn}/index/*`] : [])],
    ...(prefixes.length > 0 ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes } } } : {}),
  });
}
