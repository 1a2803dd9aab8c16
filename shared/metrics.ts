import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The service's CloudWatch metrics, as Embedded Metric Format log lines (Powertools Metrics): no
 * API calls, no IAM, CloudWatch extracts them from the function's log group. The stack's alarms and
 * dashboard (infra/observability.ts) read the same names from here.
 */

export const metricNamespace = 'Registrar';
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'registrar';

/** Metric names: per API route (dimension `route`), and the exchange-rate job's staleness. */
export const metricNames = {
  requests: 'Requests',
  clientErrors: 'ClientErrors',
  serverErrors: 'ServerErrors',
  latency: 'Latency',
  exchangeRateAge: 'ExchangeRateAgeHours',
} as const;

// Outside Lambda (npm start, tests) EMF lines would only clutter the console: off unless asked for.
if (!process.env.AWS_LAMBDA_FUNCTION_NAME && process.env.POWERTOOLS_METRICS_DISABLED === undefined) {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

export const metrics = new Metrics({ namespace: metricNamespace, serviceName });

/** One API request: its count, whether it was a 4xx or a 5xx, and its latency, per route. */
export function recordRequest(route: string, status: number, latencyMs: number): void {
  metrics.addDimension('route', route);
  metrics.addMetric(metricNames.requests, MetricUnit.Count, 1);
  metrics.addMetric(metricNames.clientErrors, MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric(metricNames.serverErrors, MetricUnit.Count, status >= 500 ? 1 : 0);
  metrics.addMetric(metricNames.latency, MetricUnit.Milliseconds, latencyMs);
  metrics.publishStoredMetrics();
}

/** The age of the newest stored exchange rate (from the start of its day, UTC), in hours. */
export function recordExchangeRateAge(rateDate: string, now: Date): number {
  const hours = Math.max(0, (now.getTime() - Date.parse(`${rateDate}T00:00:00Z`)) / 3_600_000);
  metrics.addMetric(metricNames.exchangeRateAge, MetricUnit.NoUnit, Math.round(hours * 10) / 10);
  metrics.publishStoredMetrics();
  return hours;
}
