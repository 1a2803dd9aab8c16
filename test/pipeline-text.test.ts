import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { endpoint } from '../shared/http/pipeline.ts';
import { ok, okText } from '../shared/http/response.ts';
import { apiEvent, invoke } from './support/api.ts';

// One resource, three representations: JSON, and the same text as text/dns or text/plain.
const resource = endpoint(
  {
    route: 'text-test',
    request: v.object({
      path: v.object({}),
      query: v.object({ as: v.optional(v.string()), text: v.optional(v.string()) }),
      body: v.undefined(),
    }),
  },
  async ({ input }) => {
    const text = input.query.text ?? '$ORIGIN example.com.\n@ 3600 IN A 192.0.2.1\n';
    if (input.query.as === 'dns') return okText(text, 'text/dns; charset=utf-8', { Vary: 'Accept' });
    if (input.query.as === 'plain') return okText(text, 'text/plain; charset=utf-8', { Vary: 'Accept' });
    if (input.query.as === 'broken') return { status: 200, body: { not: 'a string' }, contentType: 'text/plain' };
    return ok({ text }, { Vary: 'Accept' });
  },
  // The use case here already answers with the reply to send.
  (reply) => reply,
);

function get(query: Record<string, string>, headers: Record<string, string> = {}) {
  return invoke(resource, apiEvent({ method: 'GET', path: '/v2/text', resource: '/v2/text', query, headers }));
}

describe('text replies in the pipeline', () => {
  it('sends a text body as is with its own content type, and a strong ETag', async () => {
    const res = await get({ as: 'dns' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/dns; charset=utf-8');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.raw).toBe('$ORIGIN example.com.\n@ 3600 IN A 192.0.2.1\n');
    expect(res.body).toBe(res.raw);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('answers 304 with no body and no content type for If-None-Match with the text tag', async () => {
    const first = await get({ as: 'dns' });
    const again = await get({ as: 'dns' }, { 'If-None-Match': first.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.raw).toBe('');
    expect(again.headers['content-type']).toBeUndefined();
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.vary).toBe('Accept, Accept-Encoding');
  });

  it('gives every representation its own tag, even for the same text', async () => {
    const json = await get({});
    const dns = await get({ as: 'dns' });
    const plain = await get({ as: 'plain' });
    expect(plain.raw).toBe(dns.raw);
    expect(new Set([json.headers.etag, dns.headers.etag, plain.headers.etag]).size).toBe(3);
    const crossed = await get({ as: 'plain' }, { 'If-None-Match': dns.headers.etag as string });
    expect(crossed.status).toBe(200);
    expect(crossed.raw).toBe(dns.raw);
  });

  it('changes the tag when the text changes', async () => {
    const a = await get({ as: 'dns', text: 'one' });
    const b = await get({ as: 'dns', text: 'two' });
    expect(a.headers.etag).not.toBe(b.headers.etag);
    expect((await get({ as: 'dns', text: 'two' }, { 'If-None-Match': a.headers.etag as string })).status).toBe(200);
  });

  it('turns a text reply without a string body into a generic 500', async () => {
    const res = await get({ as: 'broken' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      type: 'InternalError',
      message: 'An internal error occurred; it has been logged with the request id.',
      requestId: res.headers['x-request-id'],
    });
  });
});
