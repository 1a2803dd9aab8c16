import type { Resolver } from 'node:dns/promises';
import type * as acme from 'acme-client';
import type { DnsProvider } from '../dns/provider.ts';
import { logger } from '../logger.ts';
import type { AuthorityOrder } from '../model/certificate-process.ts';
import {
  accountClient,
  acmeSettingsFor,
  backoffSeconds,
  claimSeconds,
  problemOf,
  resolverFor,
  retryAfterOf,
  withRetryAfter,
} from './acme/client.ts';
import { type AcmeStep, later } from './acme/order.ts';
import { ChallengeRecords } from './acme/records.ts';
import { download } from './acme/step-download.ts';
import { expired } from './acme/step-expired.ts';
import { finalize } from './acme/step-finalize.ts';
import { placeOrder } from './acme/step-order.ts';
import { present } from './acme/step-present.ts';
import { served } from './acme/step-served.ts';
import { validate } from './acme/step-validate.ts';
import { validating } from './acme/step-validating.ts';
import type { RequestView, Step, Withdrawal } from './authority.ts';

export { forgetAcmeClients, pollWaitSeconds } from './acme/client.ts';

/**
 * The ACME order of a request (RFC 8555), on acme-client: the work of the ACME adapter
 * (authority-acme.ts) with the CA, a step machine (docs/certificates.md).
 * Each pass of the DCV job calls `advance` once per step: the first step due from the recorded
 * order (cert-manager's Evaluate) is taken (Run), and the order as it now stands is answered,
 * which the job records before the next. One file per step, in shared/certificates/acme/:
 *
 * order -> present -> served -> validate -> validating -> finalize -> download
 *
 * and `expired` before them all (an order past its expiry before it was finalized is replaced).
 * A failure (the CA unreachable, a problem document) keeps the order and its step; it is recorded
 * with the problem's detail and retried after a back-off or the CA's Retry-After. No call polls:
 * acme-client's own retries and waits are switched off, and each HTTP call times out.
 */
/** How many times in all a CA is asked to withdraw a cancelled request's order. */
const maxWithdrawals = 4;

const steps: readonly AcmeStep[] = [expired, placeOrder, present, served, validate, validating, finalize, download];

export class AcmeOrders {
  private readonly records: ChallengeRecords;

  constructor(
    private readonly authority: string,
    dns: () => Promise<DnsProvider>,
    private readonly env: Record<string, string | undefined> = process.env,
    private readonly resolver: Pick<Resolver, 'resolveTxt'> = resolverFor(env),
  ) {
    this.records = new ChallengeRecords(dns);
  }

  private client(request: RequestView): Promise<acme.Client> {
    return accountClient(acmeSettingsFor(this.authority, request.validationLevel, this.env));
  }

  /** Takes the step now due for the request's order (placing it first), and answers what to record. */
  async advance(request: RequestView, now: Date, run = ''): Promise<Step> {
    const directory = acmeSettingsFor(this.authority, request.validationLevel, this.env).directoryUrl;
    const order: AuthorityOrder = request.order ?? { step: 'order', directory, challenges: [] };
    const unchanged = { validations: request.validations, order };
    if (order.notBefore !== undefined && Date.parse(order.notBefore) > now.getTime()) return unchanged;
    // Another run's claim of the step `order`, young enough that it may still be creating the order: nothing is done meanwhile.
    if (order.step === 'order' && order.orderingSince !== undefined && (order.claimedBy !== run || run === '')) {
      if (Date.parse(order.orderingSince) + claimSeconds * 1000 > Date.now()) return unchanged;
    }
    try {
      // A step that goes through clears the last failure (a step that fails anew records its own).
      const { failures: _failures, problem: _problem, notBefore: _notBefore, ...base } = order;
      const client = await this.client(request);
      const step = steps.find((s) => s.due(base, now));
      // No step is due for an order that ended (`refused`): it waits for the customer.
      if (!step) return unchanged;
      const context = { request, order: base, now, run, failures: order.failures ?? 0, client, records: this.records };
      const taken = await step.run({ ...context, resolver: this.resolver });
      return {
        validations: taken.validations ?? request.validations,
        order: taken.order,
        ...(taken.issued ? { issued: taken.issued } : {}),
        ...(taken.note ? { note: taken.note } : {}),
      };
    } catch (error) {
      const problem = problemOf(error);
      const failures = (order.failures ?? 0) + 1;
      logger.warn('acme step failed', { processId: request.processId, step: order.step, failures, problem });
      const wait = retryAfterOf(error) ?? backoffSeconds(failures);
      return {
        validations: request.validations,
        order: { ...order, failures, problem, notBefore: later(now, wait) },
        ...(problem !== order.problem ? { note: `The certificate authority could not take the step '${order.step}': ${problem}` } : {}),
      };
    }
  }

  /**
   * Withdraws the order of a cancelled request (the DCV job, after the cancellation was recorded):
   * the challenge records go at once, whatever the CA answers; then every authorization still
   * pending or valid is deactivated. A CA that refuses (not every CA can deactivate one) is asked
   * again after a back-off, at most maxWithdrawals times in all; then the order is left to expire.
   */
  async withdraw(request: RequestView, now: Date): Promise<Withdrawal> {
    const order = request.order;
    if (!order?.url) return { done: true };
    // Once refused, the CA is asked again after the back-off (the steps' own waits do not hold a withdrawal up).
    const refused = order.withdrawals ?? 0;
    if (refused > 0 && order.notBefore !== undefined && Date.parse(order.notBefore) > now.getTime()) return { done: false };
    await this.records.remove(order);
    const { published: _published, ...removed } = order;
    try {
      const client = await this.client(request);
      const urls = order.challenges.map((c) => c.authorization);
      const read = await withRetryAfter(urls, () => client.getAuthorizations({ authorizations: urls } as unknown as acme.Order));
      for (const authz of read.result)
        if (authz.status === 'pending' || authz.status === 'valid') await client.deactivateAuthorization(authz);
      return { done: true };
    } catch (error) {
      const problem = problemOf(error);
      const failures = refused + 1;
      logger.warn('acme withdrawal failed', { processId: request.processId, failures, problem });
      if (failures >= maxWithdrawals) {
        const note = `The certificate authority refused ${failures} times to withdraw the order (${problem}); it is no longer asked, and the order expires there by itself. The challenge records were removed.`;
        return { done: true, note };
      }
      const wait = retryAfterOf(error) ?? backoffSeconds(failures);
      const note = `The challenge records were removed; the certificate authority refused to withdraw the order (${problem}): it is asked again in ${wait} s.`;
      const next = { ...removed, withdrawals: failures, problem, notBefore: later(now, wait) };
      return { done: false, order: next, ...(failures === 1 ? { note } : {}) };
    }
  }
}
