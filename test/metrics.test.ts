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
  it('records requests, client and server errors and latency per route for every API request', async () => {
    const { call } = await import('./support/api.ts');
    const docs = await emitted(async () => {
      await call('GET', '/v2/providers/REGISTRY/sidn/info');
      await call('GET', '/v2/providers/REGISTRY/nope/info');
    });
    expect(docs).toHaveLength(2);
    const [okDoc, missing] = docs as [Record<string, any>, Record<string, any>];
    expect(okDoc._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'Registrar',
      Dimensions: [['service', 'route']],
      Metrics: expect.arrayContaining([
        { Name: 'Requests', Unit: 'Count' },
        { Name: 'ClientErrors', Unit: 'Count' },
        { Name: 'ServerErrors', Unit: 'Count' },
        { Name: 'Latency', Unit: 'Milliseconds' },
      ]),
    });
    expect(okDoc).toMatchObject({ service: 'registrar', route: 'provider-info', Requests: 1, ClientErrors: 0, ServerErrors: 0 });
    expect(okDoc.Latency).toBeGreaterThanOrEqual(0);
    expect(missing).toMatchObject({ route: 'provider-info', Requests: 1, ClientErrors: 1, ServerErrors: 0 });
  });

  it('counts a 5xx as a server error', async () => {
    const { call } = await import('./support/api.ts');
    const { db } = await import('../shared/db/client.ts');
    const failing = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
      void next;
      void args;
      throw Object.assign(new Error('boom'), { name: 'InternalServerError', $fault: 'server' });
    };
    db().middlewareStack.add(failing as never, { step: 'initialize', name: 'metrics-test-failure' });
    try {
      const [doc] = await emitted(() => call('GET', '/v2/domains/demo-shop.nl/zone'));
      expect(doc).toMatchObject({ route: 'zone', Requests: 1, ClientErrors: 0, ServerErrors: 1 });
    } finally {
      db().middlewareStack.remove('metrics-test-failure');
    }
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
