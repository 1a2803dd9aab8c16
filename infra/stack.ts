import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { apiKeyHeaderPattern } from '../shared/auth/api-keys.ts';
import { table as tableDefinition } from '../shared/db/table.ts';
import { type GatewayAnswerName, gatewayAnswers } from '../shared/http/gateway-responses.ts';
import { authorizerCacheSeconds, authorizerDir, fallbackDir, jobs, routes, type StackSecret, type TableAccess } from '../shared/routes.ts';
import { lambdaBundling } from './bundling.ts';
import { Observability } from './observability.ts';
import { addUsagePlan, type KeyLimits, keyLimitsFromContext } from './usage-plan.ts';

const root = join(import.meta.dirname, '..');

export interface RegistrarStackProps extends StackProps {
  /** Stage throttling for the whole API (requests per second and burst); per-key limits come from usage plans. */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Extra environment for every function (e.g. POWERTOOLS_LOG_LEVEL). */
  environment?: Record<string, string>;
  /** E-mail address for alarm notifications (also `cdk deploy -c alarmEmail=...`). */
  alarmEmail?: string;
  /** Per-API-key throttle and quota (usage plan); default `defaultKeyLimits`, overridable by cdk context. */
  keyLimits?: KeyLimits;
}

/**
 * The deployed service, generated from the route table and the table definition: one DynamoDB
 * table, one Lambda per route and per scheduled job, a REST API with an API-key authorizer.
 */
export class RegistrarStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigateway.RestApi;
  readonly functions = new Map<string, NodejsFunction>();
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: RegistrarStackProps = {}) {
    super(scope, id, props);

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
    });
    for (const gsi of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // Generated secrets, handed to the functions that declare them as a CloudFormation dynamic
    // reference (resolved at deploy time; the value never appears in the template).
    const secrets = new Map<StackSecret, secretsmanager.Secret>();
    const secretEnvironment = (names: readonly StackSecret[] = []) =>
      Object.fromEntries(
        names.map((name) => {
          let secret = secrets.get(name);
          if (!secret) {
            secret = new secretsmanager.Secret(this, `Secret-${name}`, {
              description: `${name} for the registrar functions`,
              generateSecretString: { passwordLength: 48, excludePunctuation: true },
            });
            secrets.set(name, secret);
          }
          return [name, secret.secretValue.unsafeUnwrap()];
        }),
      );

    const fn = (id: string, dir: string, access: TableAccess | 'none', environment: Record<string, string> = {}) => {
      const logGroup = new logs.LogGroup(this, `${id}-logs`, {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const f = new NodejsFunction(this, id, {
        entry: join(root, 'functions', dir, 'handler.ts'),
        handler: 'handler',
        runtime: lambda.Runtime.NODEJS_24_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: 512,
        timeout: Duration.seconds(10),
        logGroup,
        tracing: lambda.Tracing.ACTIVE,
        environment: {
          TABLE_NAME: this.table.tableName,
          POWERTOOLS_SERVICE_NAME: 'registrar',
          NODE_OPTIONS: '--enable-source-maps',
          ...props.environment,
          ...environment,
        },
        // Shared with the benchmark (bench/), which weighs and times the very same bundles.
        bundling: lambdaBundling,
      });
      if (access === 'read') this.table.grantReadData(f);
      else if (access === 'readwrite') this.table.grantReadWriteData(f);
      this.functions.set(id, f);
      return f;
    };

    // The API-key authorizer reads the key record; nothing else.
    const authorizerFn = fn('authorizer', authorizerDir, 'read');
    const authorizer = new apigateway.TokenAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: authorizerFn,
      identitySource: apigateway.IdentitySource.header('Authorization'),
      validationRegex: apiKeyHeaderPattern.source,
      resultsCacheTtl: Duration.seconds(authorizerCacheSeconds),
    });

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const throttle = props.throttle ?? { rateLimit: 100, burstLimit: 200 };
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: 'registrar',
      description: 'Registrar API: transfers, certificates, processes, providers, price lists and zones.',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Per-key usage plans: the authorizer names each customer key's API Gateway key (infra/usage-plan.ts).
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.DESTROY,
      deployOptions: {
        stageName: 'live',
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
        tracingEnabled: true,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: true,
        }),
      },
    });

    for (const [name, a] of Object.entries(gatewayAnswers)) {
      this.api.addGatewayResponse(`Gateway${name}`, {
        type: apigateway.ResponseType.of(name as GatewayAnswerName),
        statusCode: String(a.status),
        responseHeaders: {
          'X-Request-Id': 'context.requestId',
          'Content-Type': "'application/json; charset=utf-8'",
          ...Object.fromEntries(Object.entries('headers' in a ? a.headers : {}).map(([k, val]) => [k, `'${val}'`])),
        },
        templates: {
          'application/json': JSON.stringify({ type: a.type, message: a.message, requestId: '$context.requestId' }),
        },
      });
    }

    // Whatever no route takes: 404, or 405 on a known path (see functions/fallback).
    const fallback = new apigateway.LambdaIntegration(fn('fallback', fallbackDir, 'none'));
    this.api.root.addMethod('ANY', fallback);
    this.api.root.addProxy({ defaultIntegration: fallback, anyMethod: true });

    const pathsWithFallback = new Set<string>();
    for (const route of routes) {
      const resource = this.api.root.resourceForPath(route.path);
      const routeFn =
        this.functions.get(route.id) ??
        fn(route.id, route.dir, route.access, { ...route.environment, ...secretEnvironment(route.secrets) });
      // `auth: false` (the API description only) is public; every other route goes through the
      // authorizer, and its key through the usage plan (per-key throttle and quota).
      resource.addMethod(
        route.method,
        new apigateway.LambdaIntegration(routeFn),
        route.auth === false ? {} : { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true },
      );
      if (!pathsWithFallback.has(route.path)) {
        resource.addMethod('ANY', fallback);
        pathsWithFallback.add(route.path);
      }
    }

    addUsagePlan(this, this.api, keyLimitsFromContext(this, props.keyLimits));

    for (const job of jobs) {
      const jobFn = fn(job.id, job.dir, job.access, { ...job.environment, ...secretEnvironment(job.secrets) });
      new events.Rule(this, `${job.id}-schedule`, {
        description: job.summary,
        schedule: events.Schedule.expression(job.schedule),
        targets: [new targets.LambdaFunction(jobFn, { retryAttempts: 2 })],
      });
    }

    // Alarms (5xx rate, throttles, job failures, stale exchange rates) and a dashboard: infra/observability.ts.
    this.observability = new Observability(this, 'Observability', {
      api: this.api,
      table: this.table,
      functions: this.functions,
      alarmEmail: props.alarmEmail ?? (this.node.tryGetContext('alarmEmail') as string | undefined),
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.topic.topicArn, description: 'SNS topic every alarm notifies.' });
    new CfnOutput(this, 'ApiUrl', { value: `${this.api.url}v2/`, description: 'Base URL of the API (clients append paths to it).' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The single DynamoDB table (for the admin CLI).' });

    this.acknowledgeFindings();
  }

  /** cdk-nag AwsSolutions findings we accept on purpose, each with its reason. */
  private acknowledgeFindings(): void {
    const ack = (id: string, reason: string) => Validations.of(this).acknowledge({ id: `AwsSolutions::${id}`, reason });
    const tableArn = `<${this.getLogicalId(this.table.node.defaultChild as dynamodb.CfnTable)}.Arn>`;
    ack(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "The functions' managed policy grants CloudWatch Logs writes only.",
    );
    ack(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "API Gateway's account-level logging role needs exactly this policy to write execution and access logs.",
    );
    ack('AwsSolutions-IAM5[Resource::*]', 'X-Ray PutTraceSegments/PutTelemetryRecords have no resource-level scope.');
    ack(`AwsSolutions-IAM5[Resource::${tableArn}/index/*]`, "Queries on the table's own global secondary indexes (gsi1); no other table.");
    ack(
      'AwsSolutions-APIG2',
      "Requests are validated inside each function against valibot schemas, so every violation is reported with the contract's error body; a gateway request validator would answer in another shape.",
    );
    ack(
      'AwsSolutions-APIG3',
      'No WAF in the base stack: stage throttling and the API-key authorizer (cached, with a token regex) bound abuse; attach a WebACL per deployment where needed.',
    );
    ack(
      'AwsSolutions-APIG4',
      'Only the 404/405 fallback methods and GET /v2/openapi.json (the public API description) are unauthenticated: they read nothing from the table; every other route uses the API-key authorizer.',
    );
    ack(
      'AwsSolutions-SMG4',
      'The generated secrets are HMAC keys for short-lived one-time links; rotating one invalidates the links in flight, so it is rotated by hand (update the secret, redeploy).',
    );
    ack(
      'AwsSolutions-COG4',
      'The API authenticates with API keys (Authorization: ApiKey, contract section 1) through a Lambda authorizer, not Cognito.',
    );
  }
}
