import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runJob } from '../infra/local/jobs.ts';
import { jsonBody } from '../shared/http/json-body.ts';
import { endpoint } from '../shared/http/pipeline.ts';
import { logger } from '../shared/logger.ts';
import { apiEvent, call, demoKey, invoke } from './support/api.ts';
import { captureOutput } from './support/logs.ts';

// This file logs at INFO (the others run silent), set before any module creates the logger.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const boom = endpoint({ route: 'boom', request: v.object({ path: v.object({}), query: v.object({}), body: v.undefined() }) }, async () => {
  throw new Error('database password is hunter2');
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('logging', () => {
  it('turns an unexpected error into a generic 500 with a log line, and no internals on the wire', async () => {
    let res: Awaited<ReturnType<typeof invoke>> | undefined;
    const lines = await captureOutput(async () => {
      res = await invoke(boom, apiEvent({ method: 'GET', path: '/v2/boom', resource: '/v2/boom' }));
    });
    if (!res) throw new Error('no response');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      type: 'InternalError',
      message: 'An internal error occurred; it has been logged with the request id.',
      requestId: res.headers['x-request-id'],
    });
    expect(res.raw).not.toContain('hunter2');
    const failure = lines.map((l) => JSON.parse(l)).find((l) => l.message === 'request failed');
    expect(failure).toMatchObject({ level: 'ERROR', route: 'boom', requestId: res.headers['x-request-id'], errorType: 'InternalError' });
    expect(failure.error.message).toBe('database password is hunter2');
  });

  it('logs one line per request with route, status and customer, and never the API key', async () => {
    const lines = await captureOutput(async () => {
      await call('GET', '/v2/providers/REGISTRY/sidn/info');
      await call('GET', '/v2/providers/REGISTRY/sidn/info', { key: 'not-a-real-key' });
    });
    const records = lines.map((l) => JSON.parse(l));
    const request = records.find((l) => l.message === 'request');
    expect(request).toMatchObject({ level: 'INFO', route: 'provider-info', status: 200, customer: 'demo', user: 'alice', method: 'GET' });
    expect(request.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.durationMs).toEqual(expect.any(Number));
    const all = lines.join('\n');
    expect(all).not.toContain(demoKey);
    expect(all).not.toContain('not-a-real-key');
  });

  it("logs a job run after a request on the local gateway with the job's own context, none of the request's", async () => {
    const lines = await captureOutput(async () => {
      await call('GET', '/v2/providers/REGISTRY/sidn/info');
      await runJob('repair-counts');
    });
    const records = lines.map((l) => JSON.parse(l));
    const request = records.find((l) => l.message === 'request');
    expect(request).toMatchObject({ function_name: 'provider-info', function_request_id: request.requestId });
    const job = records.find((l) => l.job === 'repair-counts');
    expect(job, lines.join('\n')).toBeDefined();
    expect(job.function_name).toBe('repair-counts');
    expect(job.function_request_id).not.toBe(request.requestId);
    expect(JSON.stringify(job)).not.toContain(request.requestId);
    expect(job.route).toBeUndefined();
    expect(job.customer).toBeUndefined();
  });

  it('prints a line for a person with LOG_FORMAT=pretty: time, level, function, message, key=value, redacted as ever', async () => {
    process.env.LOG_FORMAT = 'pretty';
    try {
      const lines = await captureOutput(async () => {
        await call('GET', '/v2/providers/REGISTRY/sidn/info');
        logger.warn('payload', { body: { authcode: 'NL-SECRET' }, note: 'two words' });
      });
      const request = lines.find((l) => / request /.test(l));
      expect(request).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}\[provider-info\] request {2}.*route=provider-info/);
      expect(request).toMatch(/ status=200( |$)/);
      expect(request).not.toContain(demoKey);
      const warning = lines.find((l) => l.includes('payload'));
      expect(warning).toMatch(/^\S+ WARN {2}(\[\S+\] )?payload {2}/);
      expect(warning).toContain('body={"authcode":"[redacted]"}');
      expect(warning).toContain('note="two words"');
      expect(lines.join('\n')).not.toContain('NL-SECRET');
      expect(() => JSON.parse(request as string)).toThrow();
    } finally {
      delete process.env.LOG_FORMAT;
    }
    // JSON again once unset.
    const json = await captureOutput(async () => logger.info('json again'));
    expect(JSON.parse(json[0] as string).message).toBe('json again');
  });

  it('redacts secret fields wherever they appear in a logged object', async () => {
    const { logger } = await import('../shared/logger.ts');
    const lines = await captureOutput(async () => {
      logger.info('payload', { body: { authcode: 'NL-SECRET', nested: { csr: '-----BEGIN', voice: '+31.2' } }, Authorization: 'ApiKey x' });
    });
    const record = JSON.parse(lines[0] as string);
    expect(record.body).toEqual({ authcode: '[redacted]', nested: { csr: '[redacted]', voice: '[redacted]' } });
    expect(record.Authorization).toBe('[redacted]');
  });

  it("scrubs a request's secret values from that request's lines only, and never the fields the service writes itself", async () => {
    // A route that logs a free-text note quoting what it was sent, as an error message might.
    const noting = endpoint(
      {
        route: 'processes',
        request: v.object({ path: v.object({}), query: v.object({}), body: v.object({ authcode: v.string(), note: v.string() }) }),
        body: jsonBody,
      },
      async ({ input }) => {
        logger.info('note', { text: input.body.note });
        return {};
      },
    );
    const send = (customer: string, authcode: string, note: string) =>
      invoke(
        noting,
        apiEvent({
          method: 'POST',
          path: '/v2/noting',
          resource: '/v2/noting',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ authcode, note }),
          principal: { customer, user: 'alice', permissions: [] },
        }),
      );
    const lines = await captureOutput(async () => {
      await Promise.all([send('demo', 'processes', 'my code is processes'), send('other', 'unrelated-code', 'listing processes')]);
      await send('other', 'unrelated-code', 'listing processes again');
    });
    const records = lines.map((l) => JSON.parse(l));
    const notes = records.filter((r) => r.message === 'note').map((r) => r.text);
    expect(notes.sort()).toEqual(['listing processes', 'listing processes again', 'my code is [redacted]']);
    for (const r of records.filter((x) => x.message === 'request')) expect(r.route).toBe('processes');
  });
});
