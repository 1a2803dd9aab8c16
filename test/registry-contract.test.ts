import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { recordRegistrationIntent } from '../shared/db/repositories/registration-intents.ts';
import { putRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { ObjectDoesNotExist, ObjectExists, ObjectStatusProhibitsOperation, ValidationError } from '../shared/errors.ts';
import { registryImplementations } from '../shared/integrations.ts';
import type { RegistrationOrder, RegistryGateway, RegistryTransferState, TransferReference } from '../shared/registry/gateway.ts';
import { rtrRegistry } from '../shared/registry/rtr.ts';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { sandboxRegistry } from '../shared/registry/sandbox.ts';
import { toWireTime } from '../shared/time.ts';
import { readyWithinMs, startUpstream, type Upstream } from './support/upstream.ts';

// The contract of the registry port (shared/registry/gateway.ts): the same cases over every
// adapter of it. The sandbox registry answers from the demo dataset in this file's table; `rtr`
// is the upstream Realtime Register account's adapter, against a second instance of this
// service's sandbox started here (test/support/upstream.ts), whose demo account `demo` holds the
// same dataset. Each adapter gets the same names, auth codes and scripts, so each case reads alike.

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
});

let upstream: Upstream | undefined;

afterAll(async () => {
  await upstream?.stop();
});

/** Every adapter, by the name `REGISTRY_GATEWAY` gives it, made once its counterpart runs. */
const adapters: Record<string, () => Promise<RegistryGateway>> = {
  sandbox: async () => sandboxRegistry,
  rtr: async () => {
    upstream = await startUpstream(inject('dynamodbEndpoint'));
    process.env.RTR_API_KEY = 'demo-key';
    resetCircuit();
    return rtrRegistry({ apiUrl: upstream.proxyUrl, customer: 'demo', registries: ['sidn', 'verisign', 'nominet'], timeoutMs: 5000 });
  },
};

it('covers every adapter the selector knows', () => {
  expect(Object.keys(adapters).sort()).toEqual([...registryImplementations].sort());
});

/** What a registration asks of the registry besides the name, as the registration use case hands it. */
const registration: RegistrationOrder = {
  registrant: 'demo-registrant',
  contacts: [
    { role: 'ADMIN', handle: 'demo-admin' },
    { role: 'TECH', handle: 'demo-tech' },
  ],
};

/**
 * Puts a delete lock on demo-secure.com at the registry, or lifts it: the sandbox's record of the
 * name, or the upstream account's domain (an update through its API, as its owner would).
 */
const deleteLock: Record<string, (on: boolean) => Promise<void>> = {
  sandbox: async (on) => {
    await putRegistryDomain({
      domainName: 'demo-secure.com',
      registry: 'verisign',
      statuses: ['clientTransferProhibited', ...(on ? ['clientDeleteProhibited'] : [])],
      expiryDate: '2027-06-12T09:00:00Z',
      ns: [],
      keyData: [],
      designatedAgentAllowed: false,
      transfer: { stages: [], outcome: 'completed' },
    });
  },
  rtr: async (on) => {
    const res = await fetch(`${upstream?.url}/v2/domains/demo-secure.com/update`, {
      method: 'POST',
      headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: ['CLIENT_TRANSFER_PROHIBITED', ...(on ? ['CLIENT_DELETE_PROHIBITED'] : [])] }),
    });
    expect(res.status).toBe(200);
  },
};

/** What the transfer asks of the registry besides the name, as the transfer use case hands it. */
const order = { registrant: 'demo-registrant', contacts: [] };

describe.each(Object.keys(adapters))('the registry port over %s', (name) => {
  let registry: RegistryGateway;
  beforeAll(async () => {
    registry = await (adapters[name] as () => Promise<RegistryGateway>)();
  }, readyWithinMs + 10_000);

  /** A transfer submitted now, and the reference the service keeps of it (with the registry's own id, when it gives one). */
  async function submitted(domainName: string, registryName: string, authcode: string) {
    const base: TransferReference = { domainName, registry: registryName, requestedDate: toWireTime(new Date()), periodMonths: 12 };
    const candidate = await registry.prepareTransfer({ domainName, registry: registryName, authcode, periodMonths: 12, order });
    const first: RegistryTransferState = await registry.requestTransfer({ ...base, authcode, order, candidate, customer: 'demo' });
    const reference: TransferReference = {
      ...base,
      ...(first.registryReference !== undefined ? { registryReference: first.registryReference } : {}),
    };
    return { first, reference };
  }

  it('looks a name up for a transfer: its registry and what it holds now', async () => {
    const candidate = await registry.prepareTransfer({
      domainName: 'transfer-now.nl',
      registry: 'sidn',
      authcode: 'NL-TRANSFER-2026',
      periodMonths: 12,
      order,
    });
    expect(candidate).toMatchObject({ domainName: 'transfer-now.nl', registry: 'sidn', ns: expect.any(Array), keyData: expect.any(Array) });
  });

  it('refuses a wrong auth code on `authcode`, an unknown name as unknown, and a locked name as prohibited', async () => {
    const wrong = registry.prepareTransfer({ domainName: 'transfer-rejected.com', registry: 'verisign', authcode: 'WRONG-CODE-1', order });
    await expect(wrong).rejects.toBeInstanceOf(ValidationError);
    await expect(wrong).rejects.toMatchObject({ extra: { violations: [expect.objectContaining({ field: 'authcode' })] } });
    await expect(
      registry.prepareTransfer({ domainName: 'nobody-holds-this.com', registry: 'verisign', authcode: 'X-1', order }),
    ).rejects.toBeInstanceOf(ObjectDoesNotExist);
    await expect(
      registry.prepareTransfer({ domainName: 'transfer-locked.com', registry: 'verisign', authcode: 'COM-TRANSFER-2026', order }),
    ).rejects.toBeInstanceOf(ObjectStatusProhibitsOperation);
  });

  it('completes a transfer the registry completes at once', async () => {
    const { first } = await submitted('transfer-now.nl', 'sidn', 'NL-TRANSFER-2026');
    expect(first.status).toBe('completed');
  });

  it('keeps a waiting transfer waiting, cancels it, and answers a second cancellation alike', async () => {
    const { first, reference } = await submitted('transfer-wait.com', 'verisign', 'COM-TRANSFER-2026');
    expect(first.status).toBe('pending');
    expect((await registry.transferState(reference, new Date())).status).toBe('pending');
    expect((await registry.cancelTransfer(reference, new Date())).status).toBe('cancelled');
    expect((await registry.cancelTransfer(reference, new Date())).status).toBe('cancelled');
    expect((await registry.transferState(reference, new Date())).status).toBe('cancelled');
  });

  it('resends the FOA of a transfer that waits for it, and refuses once it no longer does', async () => {
    const { first, reference } = await submitted('transfer-foa.net', 'verisign', 'NET-TRANSFER-2026');
    expect(first.status).toBe('pendingfoa');
    await expect(registry.resendFoa(reference, new Date())).resolves.toBeUndefined();
    expect((await registry.cancelTransfer(reference, new Date())).status).toBe('cancelled');
    await expect(registry.resendFoa(reference, new Date())).rejects.toBeInstanceOf(ObjectStatusProhibitsOperation);
  });
  /**
   * A registration of `domainName` for the demo customer, prepared then submitted now, its intent
   * recorded before it is submitted as the use case records it (shared/domains/register.ts).
   */
  async function registered(domainName: string, registryName: string) {
    const request = { domainName, registry: registryName, periodMonths: 12, customer: 'demo', order: registration };
    const candidate = await registry.prepareRegistration(request);
    const reference = { domainName, registry: registryName, requestedDate: toWireTime(new Date()), periodMonths: 12 };
    await recordRegistrationIntent({
      domainName,
      customer: 'demo',
      user: 'alice',
      requestedDate: reference.requestedDate,
      periodMonths: 12,
      body: {},
    });
    const state = await registry.registerDomain({ ...reference, customer: 'demo', order: registration, candidate });
    return { candidate, reference, state };
  }

  it('registers a free name at once with its expiry, and answers a repeat of it with the same registration', async () => {
    const fresh = `contract-${name}-${Date.now()}.com`;
    const { state } = await registered(fresh, 'verisign');
    expect(state).toMatchObject({ status: 'completed', expiryDate: expect.stringMatching(/^\d{4}-/) });
    const again = await registered(fresh, 'verisign');
    expect(again.candidate.held).toBe(true);
    expect(again.state).toMatchObject({ status: 'completed', expiryDate: state.expiryDate });
  });

  it('tells the premium create price, refuses a reserved name on domainName and a held name as existing', async () => {
    const premium = await registry.prepareRegistration({
      domainName: 'register-premium.com',
      registry: 'verisign',
      periodMonths: 12,
      customer: 'demo',
      order: registration,
    });
    expect(premium.premium).toEqual({ currency: 'EUR', amount: 120000 });
    const reserved = registry.prepareRegistration({
      domainName: 'register-reserved.com',
      registry: 'verisign',
      periodMonths: 12,
      customer: 'demo',
      order: registration,
    });
    await expect(reserved).rejects.toBeInstanceOf(ValidationError);
    await expect(reserved).rejects.toMatchObject({ extra: { violations: [expect.objectContaining({ field: 'domainName' })] } });
    await expect(
      // A name the registry holds for someone else (no test here transfers it in).
      registry.prepareRegistration({
        domainName: 'transfer-locked.com',
        registry: 'verisign',
        periodMonths: 12,
        customer: 'demo',
        order: registration,
      }),
    ).rejects.toBeInstanceOf(ObjectExists);
  });

  it('keeps a pending registration pending and tells where it stands', async () => {
    const { state, reference } = await registered('register-pending.nl', 'sidn');
    expect(state.status).toBe('pending');
    const now = await registry.registrationState(
      { ...reference, customer: 'demo', ...(state.registryReference !== undefined ? { registryReference: state.registryReference } : {}) },
      new Date(),
    );
    expect(now.status).toBe('pending');
  });

  it('renews from the expiry the service holds, answers a repeat as that renewal, and refuses another expiry', async () => {
    const request = {
      domainName: 'demo-shop.nl',
      registry: 'sidn',
      currentExpiryDate: '2027-03-04T11:20:00Z',
      current: { ns: [], status: ['OK'], keyData: [] },
      periodMonths: 12,
    };
    expect(await registry.renewDomain(request)).toEqual({ expiryDate: '2028-03-04T11:20:00Z' });
    expect(await registry.renewDomain(request)).toEqual({ expiryDate: '2028-03-04T11:20:00Z' });
    await expect(registry.renewDomain({ ...request, currentExpiryDate: '2026-03-04T11:20:00Z' })).rejects.toBeInstanceOf(
      ObjectStatusProhibitsOperation,
    );
  });

  it('refuses to delete a locked name, deletes into redemption (a repeat answers alike), restores, and answers a repeated restore', async () => {
    const request = {
      domainName: 'demo-secure.com',
      registry: 'verisign',
      currentExpiryDate: '2027-06-12T09:00:00Z',
      current: { ns: [], status: ['CLIENT_TRANSFER_PROHIBITED'], keyData: [] },
      redemptionDays: 30,
    };
    await (deleteLock[name] as (on: boolean) => Promise<void>)(true);
    await expect(registry.deleteDomain({ ...request, at: new Date() })).rejects.toBeInstanceOf(ObjectStatusProhibitsOperation);
    await (deleteLock[name] as (on: boolean) => Promise<void>)(false);
    const deleted = await registry.deleteDomain({ ...request, at: new Date() });
    expect(Date.parse(deleted.redemptionUntil)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    await expect(registry.deleteDomain({ ...request, at: new Date() })).resolves.toMatchObject({ redemptionUntil: expect.any(String) });
    const inRedemption = { ...request, current: { ...request.current, status: ['REDEMPTION_PERIOD'] }, reason: 'contract', at: new Date() };
    expect(await registry.restoreDomain(inRedemption)).toEqual({ expiryDate: '2027-06-12T09:00:00Z' });
    expect(await registry.restoreDomain(inRedemption)).toEqual({ expiryDate: '2027-06-12T09:00:00Z' });
  });
});
