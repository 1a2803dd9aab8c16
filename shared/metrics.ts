import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The service's own CloudWatch metrics, as Embedded Metric Format log lines (Powertools Metrics):
 * no API calls, no IAM, CloudWatch extracts them from the function's log group. The stack's alarms
 * and dashboard (infra/observability.ts) read the same names from here.
 *
 * Requests, errors and latency per route are not emitted here: API Gateway's detailed metrics
 * (per method and resource, `metricsEnabled` on the stage) count every answer, also those the
 * authorizer, the throttle and the gateway itself give, and cost the functions nothing. Only the
 * jobs load this module.
 */

export const metricNamespace = 'Registrar';
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'registrar';

/** Metric names: the exchange-rate job's staleness. */
export const metricNames = {
  exchangeRateAge: 'ExchangeRateAgeHours',
} as const;

// Outside Lambda (npm start, tests) EMF lines would only clutter the console: off unless asked for.
if (!process.env.AWS_LAMBDA_FUNCTION_NAME && process.env.POWERTOOLS_METRICS_DISABLED === undefined) {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

export const metrics = new Metrics({ namespace: metricNamespace, serviceName });

/** The age of the newest stored exchange rate (from the start of its day, UTC), in hours. */
export function recordExchangeRateAge(rateDate: string, now: Date): number {
  const hours = Math.max(0, (now.getTime() - Date.parse(`${rateDate}T00:00:00Z`)) / 3_600_000);
  metrics.addMetric(metricNames.exchangeRateAge, MetricUnit.NoUnit, Math.round(hours * 10) / 10);
  metrics.publishStoredMetrics();
  return hours;
}
