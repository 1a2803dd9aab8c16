import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { StackSecret, TableAccess } from '../shared/routes.ts';
import { lambdaBundling } from './bundling.ts';
import type { StackSecrets } from './secrets.ts';

const root = join(import.meta.dirname, '..');

/** What a function declares about itself: a route or a job of the route table, the authorizer, the fallback. */
export interface FunctionDeclaration {
  /** Folder under functions/ holding `handler.ts`. */
  dir: string;
  /** What the function may do to the table (least privilege); 'none': no access at all. */
  access: TableAccess | 'none';
  environment?: Record<string, string>;
  secrets?: readonly StackSecret[];
}

export interface RegistrarFunctionProps {
  declaration: FunctionDeclaration;
  table: dynamodb.ITable;
  secrets: StackSecrets;
  /** Environment every function of the stack gets (e.g. POWERTOOLS_LOG_LEVEL); a declaration's own wins. */
  sharedEnvironment?: Record<string, string>;
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
    const secretEnvironment = props.secrets.environment(declaration.secrets);
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
      timeout: Duration.seconds(10),
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        TABLE_NAME: table.tableName,
        POWERTOOLS_SERVICE_NAME: 'registrar',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.sharedEnvironment,
        ...declaration.environment,
        ...secretEnvironment,
      },
      // Shared with the benchmark (bench/), which weighs and times the very same bundles.
      bundling: lambdaBundling,
    });
    grantTableAccess(table, this, declaration.access);
  }
}

/** Grants read or read-write data access to the table, or nothing for 'none'. */
function grantTableAccess(table: dynamodb.ITable, grantee: iam.IGrantable, access: TableAccess | 'none'): void {
  if (access === 'read') table.grantReadData(grantee);
  else if (access === 'readwrite') table.grantReadWriteData(grantee);
}
