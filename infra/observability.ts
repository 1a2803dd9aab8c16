import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { metricNames, metricNamespace, serviceName } from '../shared/metrics.ts';
import { jobs, routes } from '../shared/routes.ts';

export interface ObservabilityProps {
  api: apigateway.RestApi;
  table: dynamodb.Table;
  /** Every function of the stack, by id (routes, jobs, authorizer, fallback). */
  functions: ReadonlyMap<string, lambda.IFunction>;
  /** Where alarm notifications go by e-mail (optional; the topic is there either way). */
  alarmEmail?: string;
}

/** Hours after which the newest stored ECB rate counts as stale: a long holiday weekend is ~113 h. */
export const exchangeRateMaxAgeHours = 120;

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

    const alarm = (name: string, description: string, options: Omit<cloudwatch.AlarmProps, 'alarmDescription'>) => {
      const a = new cloudwatch.Alarm(this, name, { alarmDescription: description, ...options });
      a.addAlarmAction(new actions.SnsAction(this.topic));
      a.addOkAction(new actions.SnsAction(this.topic));
      this.alarms.push(a);
      return a;
    };
    const fiveMinutes = Duration.minutes(5);

    // The 5xx rate as clients see it (API Gateway: Average of 5XXError is the share of 5xx answers).
    alarm('Api5xxRate', 'More than 5% of API requests answered 5xx in 2 of 3 five-minute periods.', {
      metric: props.api.metricServerError({ period: fiveMinutes, statistic: 'Average' }),
      threshold: 0.05,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // Throttling: Lambda refusing invocations (concurrency) and DynamoDB refusing requests.
    alarm('LambdaThrottles', 'Lambda throttled invocations in the account (concurrency limit reached).', {
      metric: lambda.Function.metricAllThrottles({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const dynamoThrottles = props.table.metricThrottledRequestsForOperations({
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
    alarm('DynamoDbThrottles', 'DynamoDB throttled requests to the table (answered 503 ProviderUnavailable).', {
      metric: dynamoThrottles,
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // Each scheduled job: any failed run.
    for (const job of jobs) {
      const fn = props.functions.get(job.id);
      if (!fn) throw new Error(`No function for job ${job.id}`);
      alarm(`Job-${job.id}-Failures`, `The scheduled job ${job.id} failed: ${job.summary}`, {
        metric: fn.metricErrors({ period: Duration.minutes(15), statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }

    // The newest ECB rate is too old, or the job reported nothing for two days.
    const rateAge = new cloudwatch.Metric({
      namespace: metricNamespace,
      metricName: metricNames.exchangeRateAge,
      dimensionsMap: { service: serviceName },
      statistic: 'Maximum',
      period: Duration.days(1),
    });
    alarm(
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

    this.dashboard = this.buildDashboard(props, rateAge);
  }

  private buildDashboard(props: ObservabilityProps, rateAge: cloudwatch.Metric): cloudwatch.Dashboard {
    // API Gateway's detailed metrics (metricsEnabled on the stage): one series per method and resource.
    const perRoute = (metricName: string, statistic: string) =>
      routes.map(
        (r) =>
          new cloudwatch.Metric({
            namespace: 'AWS/ApiGateway',
            metricName,
            dimensionsMap: {
              ApiName: props.api.restApiName,
              Stage: props.api.deploymentStage.stageName,
              Method: r.method,
              Resource: r.path,
            },
            statistic,
            period: Duration.minutes(5),
            label: r.id,
          }),
      );
    const fns = [...props.functions.entries()];
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          '# Registrar API\nRequests, errors and latency per route (API Gateway, per method and resource), Lambda, DynamoDB and the scheduled jobs.',
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Requests per route', left: perRoute('Count', 'Sum'), width: 8 }),
      new cloudwatch.GraphWidget({
        title: 'Errors per route (4xx left, 5xx right)',
        left: perRoute('4XXError', 'Sum'),
        right: perRoute('5XXError', 'Sum'),
        width: 8,
      }),
      new cloudwatch.GraphWidget({ title: 'Latency per route (p99, ms)', left: perRoute('Latency', 'p99'), width: 8 }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'API Gateway',
        left: [
          props.api.metricCount({ statistic: 'Sum' }),
          props.api.metricClientError({ statistic: 'Sum' }),
          props.api.metricServerError({ statistic: 'Sum' }),
        ],
        right: [props.api.metricLatency({ statistic: 'p99' })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Lambda errors and throttles',
        left: fns.map(([id, fn]) => fn.metricErrors({ label: id, statistic: 'Sum' })),
        right: [lambda.Function.metricAllThrottles({ statistic: 'Sum', label: 'throttles (account)' })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'DynamoDB',
        left: [props.table.metricConsumedReadCapacityUnits(), props.table.metricConsumedWriteCapacityUnits()],
        right: [
          props.table.metricThrottledRequestsForOperations({
            operations: ['GetItem', 'PutItem', 'Query', 'TransactWriteItems'] as never,
            label: 'throttled',
          }),
        ],
        width: 8,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Scheduled jobs: invocations and errors',
        left: jobs.flatMap((j) => {
          const fn = props.functions.get(j.id) as lambda.IFunction;
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
    );
    dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    return dashboard;
  }
}
