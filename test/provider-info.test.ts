import { describe, expect, it } from 'vitest';
import { handler } from '../functions/provider-info/handler.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';

describe('GET /v2/providers/REGISTRY/{name}/info', () => {
  it('answers the registry metadata under the contract keys', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.name).toBe('sidn');
    expect(res.body.metadata).toMatchObject({
      possibleDomainExtensions: ['nl'],
      transferDomainPeriods: [12],
      adjustableAuthCode: false,
      transferSupportsAuthcode: true,
      transferRequiresAuthcode: true,
    });
  });

  it('works through the handler directly with an API Gateway event', async () => {
    const res = await invoke(
      handler,
      apiEvent({ method: 'GET', path: '/v2/providers/REGISTRY/nominet/info', resource: '/v2/providers/REGISTRY/{name}/info', pathParameters: { name: 'nominet' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.metadata.possibleDomainExtensions).toEqual(['uk', 'co.uk']);
  });

  it('is readable by every customer', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/verisign/info', { key: otherKey });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('verisign');
  });

  it('answers 404 ObjectDoesNotExist for an unknown provider', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/nosuch/info');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Provider 'nosuch' does not exist.",
      objectType: 'Provider',
      identifier: 'nosuch',
      requestId: res.headers['x-request-id'],
    });
  });
});
