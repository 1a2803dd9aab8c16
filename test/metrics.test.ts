import { afterEach, describe, expect, it, vi } from 'vitest';

// Metrics are off outside Lambda unless asked for (shared/metrics.ts); this file asks, before any
// module that creates the Metrics instance is loaded (hence the dynamic imports below).
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

/** The EMF documents written to stdout while `run` runs. */
async function emitted(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

afterEach(() => vi.restoreAllMocks());

describe('metrics (CloudWatch EMF)', () => {
  it('leaves per-route request metrics to API Gateway: an API request writes no EMF line', async () => {
    const { call } = await import('./support/api.ts');
    const docs = await emitted(async () => {
      await call('GET', '/v2/providers/REGISTRY/sidn/info');
      await call('GET', '/v2/providers/REGISTRY/nope/info');
    });
    expect(docs).toEqual([]);
  });

  it('has the exchange-rate job report the age of the newest stored rate, also when the run fails', async () => {
    const { handler } = await import('../functions/exchange-rates/handler.ts');
    process.env.ECB_RATES_URL = 'http://127.0.0.1:9/unreachable.xml';
    const docs = await emitted(() => handler({} as never, { awsRequestId: 'test' } as never).catch(() => 'failed'));
    const age = docs.find((d) => d.ExchangeRateAgeHours !== undefined);
    expect(age?._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'ExchangeRateAgeHours', Unit: 'None' }]);
    expect(age?.ExchangeRateAgeHours).toBeGreaterThan(0);
  });
});
