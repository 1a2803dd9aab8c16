import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/provider-info/handler.ts';
import { PropertyDefinition } from '../shared/model/provider.ts';
import { apiEvent, call, invoke, limitedKey, otherKey } from './support/api.ts';

const demo = JSON.parse(readFileSync(new URL('../infra/demo-data.json', import.meta.url), 'utf8')) as {
  providers: { name: string; metadata: Record<string, unknown> }[];
};

const metadataKeys = [
  'possibleDomainExtensions',
  'createDomainPeriods',
  'renewDomainPeriods',
  'transferDomainPeriods',
  'adjustableAuthCode',
  'transferSupportsAuthcode',
  'transferRequiresAuthcode',
  'possibleClientDomainStatuses',
  'explicitRenewSupported',
  'allowedDnssecRecords',
  'allowedDnssecAlgorithms',
  'contactProperties',
  'certificateProperties',
  'launchPhases',
];

describe('GET /v2/providers/REGISTRY/{name}/info', () => {
  it.each(['sidn', 'verisign', 'nominet'])('answers every metadata field of %s under the contract keys', async (name) => {
    const res = await call('GET', `/v2/providers/REGISTRY/${name}/info`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const expected = demo.providers.find((p) => p.name === name);
    expect(res.body).toEqual({ name, metadata: expected?.metadata });
    expect(Object.keys(res.body.metadata).sort()).toEqual([...metadataKeys].sort());
  });

  it('describes a property limited to a fixed set as a String with its values (SIDN legal form)', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    const legalForm = res.body.metadata.contactProperties.find((p: { name: string }) => p.name === 'legalForm');
    expect(legalForm).toMatchObject({ label: 'Legal form', type: 'String', mandatory: true });
    expect(legalForm.values).toMatchObject({ PERSOON: 'Natural person', BV: expect.stringContaining('besloten vennootschap') });
  });

  it.each(['sidn', 'verisign', 'nominet'])(
    'types every contact and certificate property of %s as String, Integer or Date, the types both clients know',
    async (name) => {
      const res = await call('GET', `/v2/providers/REGISTRY/${name}/info`);
      const { contactProperties, certificateProperties } = res.body.metadata;
      for (const property of [...contactProperties, ...certificateProperties]) {
        expect(['String', 'Integer', 'Date'], property.name).toContain(property.type);
        if (property.values !== undefined) expect(property.type, property.name).toBe('String');
      }
    },
  );

  it('refuses to store a property of another type, or a fixed set that is not a String', () => {
    const property = { name: 'legalForm', label: 'Legal form', description: 'd', mandatory: true };
    expect(v.safeParse(PropertyDefinition, { ...property, type: 'Enum', values: { BV: 'b' } }).success).toBe(false);
    expect(v.safeParse(PropertyDefinition, { ...property, type: 'Boolean' }).success).toBe(false);
    expect(v.safeParse(PropertyDefinition, { ...property, type: 'Integer', values: { 1: 'one' } }).success).toBe(false);
    expect(v.safeParse(PropertyDefinition, { ...property, type: 'String', values: { BV: 'b' } }).success).toBe(true);
    expect(v.safeParse(PropertyDefinition, { ...property, type: 'Date' }).success).toBe(true);
  });

  it('lists launch phases with wire timestamps (Nominet)', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/nominet/info');
    expect(res.body.metadata.launchPhases).toContainEqual({ phase: 'GENERAL_AVAILABILITY', startDate: '2014-06-10T07:00:00Z' });
    expect(res.body.metadata.possibleDomainExtensions).toEqual(['uk', 'co.uk']);
    expect(res.body.metadata.transferRequiresAuthcode).toBe(false);
  });

  it('works through the handler directly with an API Gateway event, name case-insensitive', async () => {
    const res = await invoke(
      handler,
      apiEvent({
        method: 'GET',
        path: '/v2/providers/REGISTRY/Nominet/info',
        resource: '/v2/providers/REGISTRY/{name}/info',
        pathParameters: { name: 'Nominet' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('nominet');
  });

  it.each([otherKey, limitedKey])('is readable by every customer and user (%s)', async (key) => {
    const res = await call('GET', '/v2/providers/REGISTRY/verisign/info', { key });
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

  it('answers 404 NotFound for a provider kind other than REGISTRY', async () => {
    const res = await call('GET', '/v2/providers/SSL/sectigo/info');
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('NotFound');
  });
});
