import { CfnOutput, CfnParameter, Duration, NestedStack, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { apiKeyHeaderPattern } from '../shared/auth/api-keys.ts';
import { table as tableDefinition } from '../shared/db/table.ts';
import { type GatewayAnswerName, gatewayAnswers, gatewayHeaders, methodNotAllowedAnswer } from '../shared/http/gateway-responses.ts';
import {
  authorizerCacheSeconds,
  authorizerDir,
  authorizerTable,
  type Job,
  jobs,
  methodsOf,
  type Route,
  routes,
  type StreamConsumer,
  streamConsumers,
} from '../shared/routes.ts';
import { addWebhookSecretsKey, keyArnIn } from './data-keys.ts';
import { grantRoute53 } from './dns.ts';
import { addWebAcl, checkEdgeLimits, type EdgeLimits, edgeLimitsFromContext } from './edge.ts';
import { type FunctionDeclaration, RegistrarFunction } from './function.ts';
import { Observability } from './observability.ts';
import { methodsInRoot, routeStacks } from './route-groups.ts';
import { StackSecrets } from './secrets.ts';
import { checkStage, type Stage, serviceEnvironment } from './stages.ts';
import { addUsagePlan, type KeyLimits, keyLimitsFromContext } from './usage-plan.ts';

export interface RegistrarStackProps extends StackProps {
  /** The stage: its name (the API stage) and its file's settings (stages/<name>.json, infra/stages.ts); no default. */
  stage: Stage;
  /** Stage throttling for the whole API (requests per second and burst); per-key limits come from usage plans. */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Extra environment for every function (e.g. POWERTOOLS_LOG_LEVEL). */
  environment?: Record<string, string>;
  /** E-mail address for alarm notifications; default: the stage file's `alarmEmail`. */
  alarmEmail?: string;
  /** Per-API-key throttle and quota (usage plan); default `defaultKeyLimits`, overridable by cdk context. */
  keyLimits?: KeyLimits;
  /** Per-IP limits of the WAF web ACL in front of the stage; default `defaultEdgeLimits`, overridable by cdk context. */
  edgeLimits?: EdgeLimits;
  /** The functions fed by the table's stream; default: the route table's `streamConsumers`. */
  streamConsumers?: readonly StreamConsumer[];
  /** The routes; default: the route table's `routes`. */
  routes?: readonly Route[];
}

/**
 * The deployed service, generated from the route table and the table definition: one DynamoDB
 * table, one Lambda per route and per scheduled job, a REST API with an API-key authorizer. The
 * root stack holds the table, the secrets, the API, its paths and stage, the jobs, the stream
 * consumers and their queues, and the alarms; each feature's routes (functions, permissions,
 * methods) are a nested stack of their own (infra/route-groups.ts).
 */
export class RegistrarStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigateway.RestApi;
  readonly functions = new Map<string, RegistrarFunction>();
  /** The nested stacks of the routes, by id (infra/route-groups.ts). */
  readonly routeStacks = new Map<string, NestedStack>();
  readonly observability: Observability;
  /** The key that wraps the data keys sealing webhook secrets (infra/data-keys.ts). */
  readonly webhookSecretsKey: kms.Key;
  private readonly secrets = new StackSecrets(this);
  private readonly sharedEnvironment: Record<string, string> | undefined;
  readonly stage: Stage;

  constructor(scope: Construct, id: string, props: RegistrarStackProps) {
    super(scope, id, props);
    this.stage = checkStage(props.stage);
    // The stage file's service settings (name servers, hostmaster, validation links) for every function.
    this.sharedEnvironment = { ...serviceEnvironment(this.stage), ...props.environment };
    this.table = addTable(this);
    this.webhookSecretsKey = addWebhookSecretsKey(this);
    // The API-key authorizer reads the key record; nothing else.
    const authorizer = addApiKeyAuthorizer(this, this.addFunction('authorizer', { dir: authorizerDir, table: authorizerTable }));
    const throttle = props.throttle ?? defaultStageThrottle;
    this.api = addRestApi(this, this.stage.name, throttle);
    addGatewayResponses(this.api);
    if (this.stage.customDomain) addCustomDomain(this, this.api, this.stage.customDomain);
    this.addRoutes(authorizer, props.routes ?? routes);
    addUsagePlan(this, this.api, keyLimitsFromContext(this, props.keyLimits));
    // The public edge: per-IP rate limits in front of the stage (infra/edge.ts).
    addWebAcl(this, this.api, checkEdgeLimits(edgeLimitsFromContext(this, props.edgeLimits), throttle.rateLimit));
    for (const job of jobs) addSchedule(this, job, this.addFunction(job.id, job));
    const streamFailureQueues = new Map<string, sqs.Queue>();
    for (const consumer of props.streamConsumers ?? streamConsumers) {
      const fn = this.addFunction(consumer.id, consumer);
      if (consumer.queue) {
        const queues = addQueueSource(this, consumer, consumer.queue, fn, this.table);
        streamFailureQueues.set(consumer.id, queues.pipeFailures);
        streamFailureQueues.set(`${consumer.id}-dead-letters`, queues.deadLetters);
      } else {
        streamFailureQueues.set(consumer.id, addStreamSource(this, consumer, fn, this.table));
      }
    }

    // Alarms (5xx rate, throttles, job failures, stale exchange rates) and a dashboard: infra/observability.ts.
    this.observability = new Observability(this, 'Observability', {
      api: this.api,
      table: this.table,
      functions: this.functions,
      routes: props.routes ?? routes,
      streamFailureQueues,
      alarmEmail: props.alarmEmail ?? this.stage.alarmEmail,
    });
    this.addOutputs();
    this.acknowledgeFindings();
  }

  /** A function of the stack (or of a nested stack of it), with the table access, environment and secrets it declares. */
  private addFunction(
    id: string,
    declaration: FunctionDeclaration,
    scope: Construct = this,
    table: dynamodb.ITable = this.table,
    dataKeyArn: string | undefined = this.webhookSecretsKey.keyArn,
  ): RegistrarFunction {
    const fn = new RegistrarFunction(scope, id, {
      declaration,
      table,
      ...(declaration.dataKeys?.length ? { dataKeyArn } : {}),
      secrets: this.secrets,
      stage: this.stage,
      sharedEnvironment: this.sharedEnvironment,
    });
    // Route 53's calls and DNSSEC key for the functions that call the DNS integration, on a Route 53 stage (infra/dns.ts).
    grantRoute53(fn, this.stage, declaration);
    this.functions.set(id, fn);
    return fn;
  }

  /**
   * Every route of the route table on its function. Whatever no route takes is answered by API
   * Gateway itself, no function invoked: a path no route serves gets 404 NotFound (the
   * MISSING_AUTHENTICATION_TOKEN gateway response), another method on a route's path 405 with
   * `Allow` (a mock integration on the path's ANY method).
   *
   * The API's paths stay in the root stack, shared by every feature; a route's function, its one
   * invoke permission and its methods are in its feature's nested stack (infra/route-groups.ts),
   * but for the routes whose methods were deployed in the root stack before (`methodsInRoot`).
   */
  private addRoutes(authorizer: apigateway.IAuthorizer, routeTable: readonly Route[]): void {
    const pathsWithAnswer = new Set<string>();
    for (const [stackId, members] of routeStacks(routeTable)) {
      const nested = new NestedStack(this, stackId, {
        description: `Registrar API routes, ${stackId} (infra/route-groups.ts): ${members.length} routes`,
      });
      this.routeStacks.set(stackId, nested);
      const nestedTable = tableIn(nested, this.table);
      // The key's ARN only where a route of this stack seals or opens webhook secrets.
      const nestedKeyArn = members.some((r) => r.dataKeys?.length) ? keyArnIn(nested, this.webhookSecretsKey) : undefined;
      for (const route of members) {
        const resource = this.api.root.resourceForPath(route.path);
        const routeFn = this.addFunction(route.id, route, nested, nestedTable, nestedKeyArn);
        this.allowInvoke(routeFn, route.path);
        const integration = functionIntegration(routeFn);
        const inRoot = methodsInRoot.has(route.id);
        // HEAD beside GET (contract section 1): the same function, which answers without the body.
        for (const method of methodsOf(route)) {
          if (inRoot) resource.addMethod(method, integration, methodAuthorization(route, authorizer));
          else
            new apigateway.Method(nested, `${route.id}-${method}`, {
              resource,
              httpMethod: method,
              integration,
              options: methodAuthorization(route, authorizer),
            });
        }
        if (!pathsWithAnswer.has(route.path)) {
          const allow = routeTable.filter((r) => r.path === route.path).flatMap(methodsOf);
          const options = { methodResponses: [{ statusCode: '405', responseParameters: methodNotAllowedHeaders }] };
          const answeredInRoot = routeTable.some((r) => r.path === route.path && methodsInRoot.has(r.id));
          if (answeredInRoot) resource.addMethod('ANY', methodNotAllowed(allow), options);
          else
            new apigateway.Method(nested, `${route.id}-ANY`, {
              resource,
              httpMethod: 'ANY',
              integration: methodNotAllowed(allow),
              options,
            });
          pathsWithAnswer.add(route.path);
        }
      }
    }
  }

  /**
   * The one permission of a route's function: API Gateway may invoke it from this API's stage, on
   * the route's path (any of its methods), and from nowhere else. No permission per method, and
   * none for the console's test invoke.
   */
  private allowInvoke(fn: lambda.Function, path: string): void {
    const wildcardPath = path
      .split('/')
      .map((segment) => (segment.startsWith('{') && segment.endsWith('}') ? '*' : segment))
      .join('/');
    fn.addPermission('ApiInvoke', {
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      // The stage's name, not a reference to the stage: the stage depends on the deployment, which depends on the methods.
      sourceArn: this.api.arnForExecuteApi('*', wildcardPath, this.stage.name),
    });
  }

  /** What operators and the admin CLI look up after a deploy: the alarm topic, the API's URL, the table. */
  private addOutputs(): void {
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.topic.topicArn, description: 'SNS topic every alarm notifies.' });
    new CfnOutput(this, 'ApiUrl', { value: `${this.api.url}v2/`, description: 'Base URL of the API (clients append paths to it).' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The single DynamoDB table (for the admin CLI).' });
  }

  /** cdk-nag AwsSolutions findings we accept on purpose, each with its reason. */
  private acknowledgeFindings(): void {
    const ack = (id: string, reason: string) => Validations.of(this).acknowledge({ id: `AwsSolutions::${id}`, reason });
    const tableArn = `<${this.getLogicalId(this.table.node.defaultChild as dynamodb.CfnTable)}.Arn>`;
    const indexReason =
      "Queries on the table's own global secondary indexes (gsi1, gsi2, gsi1keys, gsi2keys, gsi1list, gsi2list, gsi3); no other table.";
    // The same finding in each routes stack, where the table's ARN is the parameter TableArn (tableIn).
    for (const nested of this.routeStacks.values()) {
      Validations.of(nested).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${tableArnParameter}>/index/*]`,
        reason: indexReason,
      });
    }
    ack(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "The functions' managed policy grants CloudWatch Logs writes only.",
    );
    ack(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "API Gateway's account-level logging role needs exactly this policy to write execution and access logs.",
    );
    ack('AwsSolutions-IAM5[Resource::*]', 'X-Ray PutTraceSegments/PutTelemetryRecords have no resource-level scope.');
    ack(`AwsSolutions-IAM5[Resource::${tableArn}/index/*]`, indexReason);
    ack(
      'AwsSolutions-APIG2',
      "Requests are validated inside each function against valibot schemas, so every violation is reported with the contract's error body; a gateway request validator would answer in another shape.",
    );
    ack(
      'AwsSolutions-APIG4',
      "Only GET and HEAD /v2/openapi.json (the public API description, a function without table access) and each route path's ANY method (a mock integration answering 405, no function) are unauthenticated; every other route uses the API-key authorizer.",
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

/** The parameter of a routes stack that is the table's ARN. */
const tableArnParameter = 'TableArn';

/** The table as a routes stack sees it: by its ARN, handed in as the parameter TableArn. */
function tableIn(nested: NestedStack, table: dynamodb.Table): dynamodb.ITable {
  nested.setParameter(tableArnParameter, table.tableArn);
  const arn = new CfnParameter(nested, tableArnParameter, { type: 'String', description: "The table's ARN (the root stack's table)." });
  return dynamodb.Table.fromTableArn(nested, 'Table', arn.valueAsString);
}

/** The single table, from the shared definition; retained and protected, since it holds every record. */
function addTable(scope: Construct): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: tableDefinition.ttlAttribute,
    stream: dynamodb.StreamViewType[tableDefinition.streamViewType],
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
  });
  for (const gsi of tableDefinition.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: gsi.indexName,
      partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType[gsi.projection],
      ...('nonKeyAttributes' in gsi ? { nonKeyAttributes: [...gsi.nonKeyAttributes] } : {}),
    });
  }
  return table;
}

/**
 * The API under the stage file's own domain: a regional API Gateway custom domain on the ACM
 * certificate named there (issued in the stack's region), TLS 1.2 at least, mapped at the root to
 * the stage. The domain's DNS record (an alias or CNAME to the `CustomDomainTarget` output) is the
 * operator's, in whatever zone holds the name.
 */
function addCustomDomain(scope: Stack, api: apigateway.RestApi, domain: { domainName: string; certificateArn: string }): void {
  const custom = new apigateway.DomainName(scope, 'CustomDomain', {
    domainName: domain.domainName,
    certificate: acm.Certificate.fromCertificateArn(scope, 'CustomDomainCertificate', domain.certificateArn),
    endpointType: apigateway.EndpointType.REGIONAL,
    securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
  });
  new apigateway.BasePathMapping(scope, 'CustomDomainMapping', { domainName: custom, restApi: api, stage: api.deploymentStage });
  new CfnOutput(scope, 'CustomDomainTarget', {
    value: custom.domainNameAliasDomainName,
    description: `Where ${domain.domainName} must point: a CNAME, or an alias record in the hosted zone CustomDomainTargetZone.`,
  });
  new CfnOutput(scope, 'CustomDomainTargetZone', {
    value: custom.domainNameAliasHostedZoneId,
    description: 'The hosted zone of CustomDomainTarget (for an alias record).',
  });
  new CfnOutput(scope, 'CustomDomainUrl', {
    value: `https://${domain.domainName}/v2/`,
    description: 'Base URL of the API on its own domain.',
  });
}

/** The token authorizer in front of every authenticated route; API Gateway caches its answer per key. */
function addApiKeyAuthorizer(scope: Construct, handler: lambda.IFunction): apigateway.TokenAuthorizer {
  return new apigateway.TokenAuthorizer(scope, 'ApiKeyAuthorizer', {
    handler,
    identitySource: apigateway.IdentitySource.header('Authorization'),
    validationRegex: apiKeyHeaderPattern.source,
    resultsCacheTtl: Duration.seconds(authorizerCacheSeconds),
  });
}

/**
 * One JSON access-log line per request, naming the caller: the customer and user the authorizer
 * found for the key (`principalId` is `customer/user`) and the key's usage-plan key, with the
 * request's id, address, method, path, status and size. A refused or anonymous request has them empty.
 */
const field = apigateway.AccessLogField;
export const accessLogFields = {
  requestId: field.contextRequestId(),
  ip: field.contextIdentitySourceIp(),
  caller: field.contextAuthorizerPrincipalId(),
  customer: field.contextAuthorizer('customer'),
  user: field.contextAuthorizer('user'),
  apiKeyId: field.contextIdentityApiKeyId(),
  requestTime: field.contextRequestTime(),
  httpMethod: field.contextHttpMethod(),
  resourcePath: field.contextResourcePath(),
  status: field.contextStatus(),
  protocol: field.contextProtocol(),
  responseLength: field.contextResponseLength(),
};

/** The REST API and its stage: throttled, traced, with error logs, metrics and JSON access logs. */
function addRestApi(scope: Construct, stageName: string, throttle: { rateLimit: number; burstLimit: number }): apigateway.RestApi {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', {
    retention: logs.RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  return new apigateway.RestApi(scope, 'Api', {
    restApiName: 'registrar',
    description: 'Registrar API: transfers, certificates, processes, providers, price lists and zones.',
    endpointTypes: [apigateway.EndpointType.REGIONAL],
    // The functions compress their answers (shared/http/encoding.ts) and return them base64-encoded;
    // with every media type binary, API Gateway sends those bytes as they are, whatever the
    // client's Accept header (it decides by the first Accept value), and hands request bodies to
    // the functions base64-encoded (shared/http/json-body.ts decodes them). API Gateway's own
    // compression (minimumCompressionSize) stays off: it would act after Lambda's 6 MB limit.
    binaryMediaTypes: ['*/*'],
    // Per-key usage plans: the authorizer names each customer key's API Gateway key (infra/usage-plan.ts).
    apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
    cloudWatchRole: true,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.DESTROY,
    deployOptions: {
      stageName,
      throttlingRateLimit: throttle.rateLimit,
      throttlingBurstLimit: throttle.burstLimit,
      tracingEnabled: true,
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: true,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
      accessLogFormat: apigateway.AccessLogFormat.custom(JSON.stringify(accessLogFields)),
    },
  });
}

/**
 * API Gateway's own answers (401, 403, 429, ...) in the service's error body, with the request id
 * in the body and in X-Request-Id, and the headers of every answer (no-store, nosniff; a 401's
 * WWW-Authenticate).
 */
function addGatewayResponses(api: apigateway.RestApi): void {
  for (const [name, a] of Object.entries(gatewayAnswers)) {
    api.addGatewayResponse(`Gateway${name}`, {
      type: apigateway.ResponseType.of(name as GatewayAnswerName),
      statusCode: String(a.status),
      responseHeaders: {
        'X-Request-Id': 'context.requestId',
        'Content-Type': "'application/json; charset=utf-8'",
        ...Object.fromEntries(Object.entries(gatewayHeaders(a)).map(([k, val]) => [k, `'${val}'`])),
      },
      templates: {
        'application/json': JSON.stringify({ type: a.type, message: a.message, requestId: '$context.requestId' }),
      },
    });
  }
}

/**
 * `auth: false` (the API description only) is public; every other route goes through the
 * authorizer, and its key through the usage plan (per-key throttle and quota).
 */
function methodAuthorization(route: Route, authorizer: apigateway.IAuthorizer): apigateway.MethodOptions {
  return route.auth === false ? {} : { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true };
}

/** The stage's throttle when none is given: with the edge's per-IP limit, at least ten addresses to fill it (infra/edge.ts). */
export const defaultStageThrottle = { rateLimit: 1000, burstLimit: 2000 };

const methodNotAllowedHeaders = Object.fromEntries(
  ['Allow', 'X-Request-Id', 'Content-Type', ...Object.keys(gatewayHeaders(methodNotAllowedAnswer('GET', [])))].map((h) => [
    `method.response.header.${h}`,
    true,
  ]),
);

/**
 * 405 MethodNotAllowed for a method no route of a path serves, in the contract's error body with
 * `Allow`: a mock integration, so API Gateway answers it without invoking a function.
 */
function methodNotAllowed(allow: string[]): apigateway.MockIntegration {
  const answer = methodNotAllowedAnswer('$context.httpMethod', allow);
  const headers = { ...gatewayHeaders(answer), 'Content-Type': 'application/json; charset=utf-8' };
  return new apigateway.MockIntegration({
    requestTemplates: { 'application/json': '{"statusCode": 405}' },
    // Any body, of any type, gets the same answer: the one (default) integration response is the 405.
    passthroughBehavior: apigateway.PassthroughBehavior.WHEN_NO_MATCH,
    integrationResponses: [
      {
        statusCode: '405',
        responseParameters: {
          'method.response.header.X-Request-Id': 'context.requestId',
          ...Object.fromEntries(Object.entries(headers).map(([k, val]) => [`method.response.header.${k}`, `'${val}'`])),
        },
        responseTemplates: {
          'application/json': JSON.stringify({ type: answer.type, message: answer.message, requestId: '$context.requestId' }),
        },
      },
    ],
  });
}

/**
 * A Lambda proxy integration that grants nothing: the function's one invoke permission is
 * `allowInvoke`'s (LambdaIntegration would add two per method, for the stage and the console's test).
 */
function functionIntegration(fn: lambda.IFunction): apigateway.Integration {
  return new apigateway.AwsIntegration({ proxy: true, service: 'lambda', path: `2015-03-31/functions/${fn.functionArn}/invocations` });
}

/** Runs a job's function on its schedule, retrying a failed run twice. */
function addSchedule(scope: Construct, job: Job, fn: lambda.IFunction): void {
  new events.Rule(scope, `${job.id}-schedule`, {
    description: job.summary,
    schedule: events.Schedule.expression(job.schedule),
    targets: [new targets.LambdaFunction(fn, { retryAttempts: 2 })],
  });
}

/**
 * Feeds a stream consumer from the table's stream (shared/routes.ts `streamConsumers`): only the
 * changes of its entities (filter criteria on the new or the old image), in order per shard,
 * partial batch failures honoured, a failing batch split in halves and retried, then reported to
 * an on-failure queue (kept 14 days, alarmed by infra/observability.ts) and skipped. Returns that queue.
 */
function addStreamSource(scope: Construct, consumer: StreamConsumer, fn: lambda.Function, table: dynamodb.Table): sqs.Queue {
  const onFailure = new sqs.Queue(scope, `${consumer.id}-stream-failures`, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(onFailure).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason:
      'This queue is itself the dead-letter destination of the stream consumer (its on-failure destination): what lands here is read by an operator, and an alarm fires on its first message.',
  });
  const entities = lambda.FilterRule.or(...consumer.entities);
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: consumer.batchSize,
      retryAttempts: consumer.retryAttempts,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      parallelizationFactor: 1,
      onFailure: new SqsDlq(onFailure),
      filters: consumer.eventNames
        ? [
            lambda.FilterCriteria.filter({
              eventName: lambda.FilterRule.or(...consumer.eventNames),
              dynamodb: { OldImage: { entity: { S: entities } } },
            }),
          ]
        : [
            lambda.FilterCriteria.filter({ dynamodb: { NewImage: { entity: { S: entities } } } }),
            lambda.FilterCriteria.filter({ dynamodb: { OldImage: { entity: { S: entities } } } }),
          ],
    }),
  );
  return onFailure;
}

/**
 * Feeds a consumer declared with a `queue` (shared/routes.ts): an EventBridge Pipe reads the
 * table's stream, keeps only the inserts of the consumer's entities (filter criteria), and sends
 * each record as it is to an SQS FIFO queue, its message group the new image's `groupBy`, its
 * deduplication id the `deduplicateBy` attribute; a record the pipe could not send after
 * `retryAttempts` retries goes to the pipe's failure queue. The function consumes the queue
 * (`batchSize` messages, partial batch failures reported); a message received `maxReceiveCount`
 * times moves to the dead-letter queue. Both queues are kept 14 days and alarmed
 * (infra/observability.ts). A failing message holds its own group only: the stream's shard is
 * never blocked, and neither is another group.
 */
function addQueueSource(
  scope: Construct,
  consumer: StreamConsumer,
  settings: NonNullable<StreamConsumer['queue']>,
  fn: lambda.Function,
  table: dynamodb.Table,
): { pipeFailures: sqs.Queue; deadLetters: sqs.Queue } {
  const kept = {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  };
  const deadLetters = new sqs.Queue(scope, `${consumer.id}-dead-letters`, { ...kept, fifo: true });
  const pipeFailures = new sqs.Queue(scope, `${consumer.id}-pipe-failures`, kept);
  for (const [queue, reason] of [
    [deadLetters, "This queue is itself the dead-letter queue of the consumer's delivery queue: an alarm fires on its first message."],
    [
      pipeFailures,
      "This queue is itself the pipe's dead-letter destination (stream records it could not send): an alarm fires on its first message.",
    ],
  ] as const) {
    Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason });
  }
  const queue = new sqs.Queue(scope, `${consumer.id}-queue`, {
    ...kept,
    fifo: true,
    // Deduplication and throughput per message group (SQS FIFO's high-throughput mode).
    deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
    fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: settings.maxReceiveCount },
  });
  const streamArn = table.tableStreamArn;
  if (!streamArn) throw new Error('The table has no stream');
  const role = new iam.Role(scope, `${consumer.id}-pipe-role`, {
    assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: `The pipe feeding ${consumer.id}: reads the table's stream, sends to its queue and failure queue.`,
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      resources: [streamArn],
    }),
  );
  queue.grantSendMessages(role);
  pipeFailures.grantSendMessages(role);
  const entities = consumer.entities;
  const pipe = new pipes.CfnPipe(scope, `${consumer.id}-pipe`, {
    description: consumer.summary,
    roleArn: role.roleArn,
    source: streamArn,
    sourceParameters: {
      dynamoDbStreamParameters: {
        startingPosition: 'TRIM_HORIZON',
        // One record per message: the group and deduplication id are read from each record.
        batchSize: 1,
        maximumRetryAttempts: consumer.retryAttempts,
        deadLetterConfig: { arn: pipeFailures.queueArn },
      },
      filterCriteria: {
        filters: [{ pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: entities } } } }) }],
      },
    },
    target: queue.queueArn,
    targetParameters: {
      sqsQueueParameters: {
        messageGroupId: `$.dynamodb.NewImage.${settings.groupBy}.S`,
        messageDeduplicationId: `$.dynamodb.NewImage.${settings.deduplicateBy}.N`,
      },
    },
  });
  pipe.node.addDependency(role);
  fn.addEventSource(
    new SqsEventSource(queue, {
      batchSize: consumer.batchSize,
      reportBatchItemFailures: true,
    }),
  );
  return { pipeFailures, deadLetters };
}
