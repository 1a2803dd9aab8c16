import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { dnsMetricNames } from '../shared/dns/dns-metrics.ts';
import { metricNames, metricNamespace, serviceName } from '../shared/metrics.ts';
import { jobs, type Route, routes } from '../shared/routes.ts';

export interface ObservabilityProps {
  api: apigateway.RestApi;
  table: dynamodb.Table;
  /** Every function of the stack, by id (routes, jobs, authorizer). */
  functions: ReadonlyMap<string, lambda.IFunction>;
  /** The routes the dashboard graphs; default: the route table's. */
  routes?: readonly Route[];
  /** Each stream consumer's on-failure queue, by consumer id: a batch there was skipped. */
  streamFailureQueues?: ReadonlyMap<string, sqs.IQueue>;
  /** Where alarm notifications go by e-mail (optional; the topic is there either way). */
  alarmEmail?: string;
}

/** Hours after which the newest stored ECB rate counts as stale: a long holiday weekend is ~113 h. */
export const exchangeRateMaxAgeHours = 120;

const fiveMinutes = Duration.minutes(5);

/**
 * Alarms and a dashboard over the metrics AWS keeps (API Gateway per method and resource, Lambda,
 * DynamoDB) and the one the service emits (shared/metrics.ts, EMF: exchange-rate age). Every alarm notifies one SNS topic.
 */
export class Observability extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Registrar alarms', enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.addApiErrorAlarm(props.api);
    this.addThrottleAlarms(props.table);
    this.addJobAlarms(props.functions);
    this.addStreamFailureAlarms(props.streamFailureQueues ?? new Map());
    this.addDnsRefusalAlarm();
    const rateAge = exchangeRateAge();
    this.addExchangeRateAlarm(rateAge);
    this.dashboard = this.buildDashboard(props, rateAge);
  }

  /** An alarm that notifies the topic when it fires and again when it clears. */
  private alarm(name: string, description: string, options: Omit<cloudwatch.AlarmProps, 'alarmDescription'>): cloudwatch.Alarm {
    const a = new cloudwatch.Alarm(this, name, { alarmDescription: description, ...options });
    a.addAlarmAction(new actions.SnsAction(this.topic));
    a.addOkAction(new actions.SnsAction(this.topic));
    this.alarms.push(a);
    return a;
  }

  /** The 5xx rate as clients see it (API Gateway: Average of 5XXError is the share of 5xx answers). */
  private addApiErrorAlarm(api: apigateway.RestApi): void {
    this.alarm('Api5xxRate', 'More than 5% of API requests answered 5xx in 2 of 3 five-minute periods.', {
      metric: api.metricServerError({ period: fiveMinutes, statistic: 'Average' }),
      threshold: 0.05,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** Throttling: Lambda refusing invocations (concurrency) and DynamoDB refusing requests. */
  private addThrottleAlarms(table: dynamodb.Table): void {
    this.alarm('LambdaThrottles', 'Lambda throttled invocations in the account (concurrency limit reached).', {
      metric: lambda.Function.metricAllThrottles({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const dynamoThrottles = table.metricThrottledRequestsForOperations({
      operations: [
        'GetItem',
        'PutItem',
        'UpdateItem',
        'DeleteItem',
        'Query',
        'BatchGetItem',
        'TransactWriteItems',
        'TransactGetItems',
      ] as never,
      period: fiveMinutes,
    });
    this.alarm('DynamoDbThrottles', 'DynamoDB throttled requests to the table (answered 503 ProviderUnavailable).', {
      metric: dynamoThrottles,
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** Each scheduled job: any failed run. */
  private addJobAlarms(functions: ReadonlyMap<string, lambda.IFunction>): void {
    for (const job of jobs) {
      const fn = functions.get(job.id);
      if (!fn) throw new Error(`No function for job ${job.id}`);
      this.alarm(`Job-${job.id}-Failures`, `The scheduled job ${job.id} failed: ${job.summary}`, {
        metric: fn.metricErrors({ period: Duration.minutes(15), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }

  /** Each stream consumer: a batch that kept failing was skipped and reported to its queue. */
  private addStreamFailureAlarms(queues: ReadonlyMap<string, sqs.IQueue>): void {
    for (const [id, queue] of queues) {
      this.alarm(
        `Stream-${id}-Failures`,
        `The stream consumer ${id} gave up on records that kept failing: see its on-failure or dead-letter queue.`,
        {
          metric: queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        },
      );
    }
  }

  /** The DNS provider refused a zone push: that zone is not served as the table has it (docs/dns.md). */
  private addDnsRefusalAlarm(): void {
    this.alarm('DnsPushRefused', 'The DNS provider refused a zone push: GET .../zone of that zone says why (docs/dns.md).', {
      metric: new cloudwatch.Metric({
        namespace: metricNamespace,
        metricName: dnsMetricNames.pushRefused,
        dimensionsMap: { service: serviceName },
        statistic: 'Sum',
        period: fiveMinutes,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** The newest ECB rate is too old, or the job reported nothing for two days. */
  private addExchangeRateAlarm(rateAge: cloudwatch.Metric): void {
    this.alarm(
      'ExchangeRatesStale',
      `The newest stored exchange rate is older than ${exchangeRateMaxAgeHours} hours, or the exchange-rate job reported nothing, two days running.`,
      {
        metric: rateAge,
        threshold: exchangeRateMaxAgeHours,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      },
    );
  }

  /** One dashboard, top to bottom: per-route traffic, the AWS services, the jobs, every alarm's state. */
  private buildDashboard(props: ObservabilityProps, rateAge: cloudwatch.Metric): cloudwatch.Dashboard {
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          '# Registrar API\nRequests, errors and latency per route (API Gateway, per method and resource), Lambda, DynamoDB and the scheduled jobs.',
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(...routeWidgets(props.api, props.routes ?? routes));
    dashboard.addWidgets(...serviceWidgets(props));
    dashboard.addWidgets(...jobWidgets(props.functions, rateAge));
    dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    return dashboard;
  }
}

/** The age in hours of the newest stored exchange rate, as the exchange-rate job reports it (EMF). */
function exchangeRateAge(): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: metricNamespace,
    metricName: metricNames.exchangeRateAge,
    dimensionsMap: { service: serviceName },
    statistic: 'Maximum',
    period: Duration.days(1),
  });
}

/** One series per route, from API Gateway's detailed metrics (metricsEnabled on the stage: per method and resource). */
function perRoute(api: apigateway.RestApi, routes: readonly Route[], metricName: string, statistic: string): cloudwatch.Metric[] {
  return routes.map(
    (r) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: {
          ApiName: api.restApiName,
          Stage: api.deploymentStage.stageName,
          Method: r.method,
          Resource: r.path,
        },
        statistic,
        period: Duration.minutes(5),
        label: r.id,
      }),
  );
}

/** Requests, errors and latency per route. */
function routeWidgets(api: apigateway.RestApi, routes: readonly Route[]): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({ title: 'Requests per route', left: perRoute(api, routes, 'Count', 'Sum'), width: 8 }),
    new cloudwatch.GraphWidget({
      title: 'Errors per route (4xx left, 5xx right)',
      left: perRoute(api, routes, '4XXError', 'Sum'),
      right: perRoute(api, routes, '5XXError', 'Sum'),
      width: 8,
    }),
    new cloudwatch.GraphWidget({ title: 'Latency per route (p99, ms)', left: perRoute(api, routes, 'Latency', 'p99'), width: 8 }),
  ];
}

/** The API as a whole, every function's errors and throttles, and the table. */
function serviceWidgets({ api, functions, table }: ObservabilityProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'API Gateway',
      left: [
        api.metricCount({ statistic: 'Sum' }),
        api.metricClientError({ statistic: 'Sum' }),
        api.metricServerError({ statistic: 'Sum' }),
      ],
      right: [api.metricLatency({ statistic: 'p99' })],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'Lambda errors and throttles',
      left: [...functions.entries()].map(([id, fn]) => fn.metricErrors({ label: id, statistic: 'Sum' })),
      right: [lambda.Function.metricAllThrottles({ statistic: 'Sum', label: 'throttles (account)' })],
      width: 8,
    }),
    new cloudwatch.GraphWidget({
      title: 'DynamoDB',
      left: [table.metricConsumedReadCapacityUnits(), table.metricConsumedWriteCapacityUnits()],
      right: [
        table.metricThrottledRequestsForOperations({
          operations: ['GetItem', 'PutItem', 'Query', 'TransactWriteItems'] as never,
          label: 'throttled',
        }),
      ],
      width: 8,
    }),
  ];
}

/** Runs and errors of each scheduled job, and the exchange-rate age against its stale line. */
function jobWidgets(functions: ReadonlyMap<string, lambda.IFunction>, rateAge: cloudwatch.Metric): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Scheduled jobs: invocations and errors',
      left: jobs.flatMap((j) => {
        const fn = functions.get(j.id) as lambda.IFunction;
        return [
          fn.metricInvocations({ label: `${j.id} runs`, statistic: 'Sum' }),
          fn.metricErrors({ label: `${j.id} errors`, statistic: 'Sum' }),
        ];
      }),
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: 'Newest exchange rate age (hours)',
      left: [rateAge],
      leftAnnotations: [{ value: exchangeRateMaxAgeHours, label: 'stale', color: '#d62728' }],
      width: 12,
    }),
  ];
}
