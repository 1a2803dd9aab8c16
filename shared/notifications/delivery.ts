import { getNotification, markNotificationDelivered } from '../db/repositories/notifications.ts';
import {
  claimDelivery,
  enqueueDelivery,
  firstWaitingDelivery,
  listDueDeliveries,
  putDeadLetter,
  removeDelivery,
  rescheduleDelivery,
} from '../db/repositories/webhook-deliveries.ts';
import { getWebhook, recordWebhookOutcome } from '../db/repositories/webhooks.ts';
import type { NotificationRecord } from '../model/notification.ts';
import { nextAttemptDelay, signingSecrets, type WebhookDelivery, type WebhookRecord } from '../model/webhook.ts';
import { now, toWireTime } from '../time.ts';
import { type Attempt, attemptTimeoutMs, postSigned } from './post.ts';
import { openSecret } from './secret-box.ts';
import { signatureHeaders } from './signing.ts';

/**
 * Delivering notifications to the customers' webhooks (docs/notifications.md):
 * - the fast path (`deliverNew`, fed by the delivery queue): each new notification is POSTed at once,
 *   customers side by side (one lane each, in notification order), the attempt given at most
 *   `firstAttemptMs()`; a customer whose endpoint has a delivery waiting in the retry lane gets
 *   its new notifications queued behind it, untried, so a failing endpoint costs the shared path
 *   one short attempt, once;
 * - the retry lane (`deliverDue`, a scheduled job): deliveries due are tried again, customers side
 *   by side, with the full attempt time, with exponential backoff and jitter over about three days
 *   (model/webhook.ts), `Retry-After` honoured; 410 disables the endpoint; after the last attempt
 *   the notification becomes a dead letter the customer can list and redeliver.
 * Delivery is at least once: a retried or replayed one carries the same `webhook-id`.
 */

/** The fast path's attempt time (`WEBHOOK_FIRST_ATTEMPT_MS`, default 2000 ms): a slower receiver is retried in the retry lane. */
export function firstAttemptMs(): number {
  const value = Number(process.env.WEBHOOK_FIRST_ATTEMPT_MS ?? 2000);
  return Number.isInteger(value) && value > 0 && value <= attemptTimeoutMs ? value : 2000;
}

/**
 * The time kept back, within a run's budget, to record an attempt's outcome (the notification,
 * the endpoint's state, the delivery rescheduled or made a dead letter, the customer's later
 * deliveries moved behind it): an attempt's timeout plus this always fits in the function's.
 */
const recordMarginMs = 1500;
/** An attempt shorter than this is not worth making: the delivery is left for the next run. */
const minAttemptMs = 500;

/**
 * How long the next attempt may take so that it and its recording end by `until` (epoch ms),
 * at most `wanted`; undefined when too little is left and the run must stop taking work.
 */
export function attemptBudget(until: number, wanted: number, clock = Date.now()): number | undefined {
  const left = until - clock - recordMarginMs;
  return left >= minAttemptMs ? Math.min(wanted, left) : undefined;
}

/** Customers delivered side by side at most. */
const laneConcurrency = 16;
/** How long a retry run holds a delivery it took (longer than an attempt). */
const leaseSeconds = 60;
/** Deliveries one retry run takes at most. */
const dueBatch = 200;

/** The stable `webhook-id` of a notification's deliveries (every retry and replay carries it). */
export function webhookIdOf(notificationId: number): string {
  return `msg_${notificationId}`;
}

/** The body sent: the notification as the API answers it, without the read, acknowledge and delivery dates (the same bytes on every attempt). */
export function deliveryBody(n: NotificationRecord): string {
  const { readDate: _r, acknowledgeDate: _a, deliveryDate: _d, ...rest } = n;
  return JSON.stringify(rest);
}

async function attempt(webhook: WebhookRecord, n: NotificationRecord, timeoutMs: number, at: Date): Promise<Attempt> {
  const body = deliveryBody(n);
  const secrets = await Promise.all(signingSecrets(webhook, toWireTime(at)).map((s) => openSecret(webhook.customer, s)));
  const headers = signatureHeaders(
    webhookIdOf(n.id),
    Math.floor(at.getTime() / 1000),
    body,
    secrets.map((s) => s.secret),
  );
  return postSigned(webhook.url, body, headers, timeoutMs);
}

/** Runs `work` for each group, at most laneConcurrency at a time. */
async function lanes<T>(groups: Map<string, T[]>, work: (customer: string, items: T[]) => Promise<void>): Promise<void> {
  const queue = [...groups.entries()];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await work(next[0], next[1]);
  };
  await Promise.all(Array.from({ length: Math.min(laneConcurrency, queue.length) }, worker));
}

function byCustomer<T extends { customer: string }>(items: readonly T[], id: (item: T) => number): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of [...items].sort((a, b) => id(a) - id(b))) groups.set(item.customer, [...(groups.get(item.customer) ?? []), item]);
  return groups;
}

type Settled = { kind: 'delivered' } | { kind: 'gone' } | { kind: 'queued'; dueDate: string } | { kind: 'dead' };

/** Records an attempt's outcome: delivered, the endpoint gone (disabled, a dead letter), or queued for its next attempt (or dead after the last). */
async function settle(delivery: WebhookDelivery, queued: boolean, outcome: Attempt, at: Date): Promise<Settled> {
  const stamp = toWireTime(at);
  const { customer, notificationId } = delivery;
  if (outcome.kind === 'delivered') {
    await markNotificationDelivered(customer, notificationId, stamp);
    await recordWebhookOutcome(customer, { delivered: true, at: stamp });
    if (queued) await removeDelivery(customer, notificationId);
    return { kind: 'delivered' };
  }
  const attempts = delivery.attempts + 1;
  const dead = async (failure: string) => {
    await putDeadLetter({ customer, notificationId, attempts, deadDate: stamp, lastFailure: failure });
    if (queued) await removeDelivery(customer, notificationId);
  };
  if (outcome.kind === 'gone') {
    await recordWebhookOutcome(customer, { delivered: false, at: stamp, failure: outcome.failure, disable: true });
    await dead(outcome.failure);
    return { kind: 'gone' };
  }
  await recordWebhookOutcome(customer, { delivered: false, at: stamp, failure: outcome.failure });
  const delay = nextAttemptDelay(attempts, outcome.retryAfterSeconds, Math.random());
  if (delay === undefined) {
    await dead(outcome.failure);
    return { kind: 'dead' };
  }
  const dueDate = toWireTime(at.getTime() + delay * 1000);
  const next = { customer, notificationId, attempts, dueDate, lastFailure: outcome.failure };
  if (queued) await rescheduleDelivery(next);
  else await enqueueDelivery(next);
  return { kind: 'queued', dueDate };
}

/**
 * The fast path: new notifications (from the table's stream, through the delivery queue),
 * delivered at once or queued (see the module comment). Answers the customers whose delivery could
 * not be recorded (the table refused): their notifications are to be handed over again, in order;
 * what was recorded for them is passed over then. Every other customer's are done.
 */
export async function deliverNew(
  notifications: readonly NotificationRecord[],
  until = Number.POSITIVE_INFINITY,
): Promise<ReadonlySet<string>> {
  const failed = new Set<string>();
  await lanes(
    byCustomer(notifications, (n) => n.id),
    async (customer, list) => {
      try {
        await deliverInOrder(customer, list, until);
      } catch {
        failed.add(customer);
      }
    },
  );
  return failed;
}

/** A customer's new notifications in order; those whose turn comes past the budget go to the retry lane, due at once, untried. */
async function deliverInOrder(customer: string, list: readonly NotificationRecord[], until: number): Promise<void> {
  const webhook = await getWebhook(customer);
  if (webhook?.status !== 'ENABLED') return;
  let behind = (await firstWaitingDelivery(customer))?.dueDate;
  for (const written of list) {
    const current = await getNotification(customer, written.id);
    if (!current || current.deliveryDate !== undefined) continue;
    if (behind !== undefined) {
      await enqueueDelivery({ customer, notificationId: current.id, attempts: 0, dueDate: behind });
      continue;
    }
    const at = now();
    const timeoutMs = attemptBudget(until, firstAttemptMs());
    if (timeoutMs === undefined) {
      behind = toWireTime(at);
      await enqueueDelivery({ customer, notificationId: current.id, attempts: 0, dueDate: behind });
      continue;
    }
    const outcome = await attempt(webhook, current, timeoutMs, at);
    const settled = await settle({ customer, notificationId: current.id, attempts: 0, dueDate: toWireTime(at) }, false, outcome, at);
    if (settled.kind === 'gone') return;
    if (settled.kind === 'queued') behind = settled.dueDate;
  }
}

export interface RetrySummary {
  due: number;
  delivered: number;
  failed: number;
  dead: number;
  /** Due deliveries left for the next run: the run's budget ran out before their turn. */
  deferred: number;
}

/**
 * The retry lane: deliveries due at `at`, each customer's in notification order, stopping at its
 * first failure. Every attempt and its recording end by `until` (epoch ms: the invocation's
 * deadline less what it keeps to answer); a delivery whose turn comes too late is left, unclaimed,
 * for the next run.
 */
export async function deliverDue(at: Date, until = Number.POSITIVE_INFINITY): Promise<RetrySummary> {
  const stamp = toWireTime(at);
  const due = await listDueDeliveries(stamp, dueBatch);
  const summary: RetrySummary = { due: due.length, delivered: 0, failed: 0, dead: 0, deferred: 0 };
  await lanes(
    byCustomer(due, (d) => d.notificationId),
    async (customer, list) => {
      const webhook = await getWebhook(customer);
      for (let i = 0; i < list.length; i++) {
        const delivery = list[i] as WebhookDelivery;
        if (attemptBudget(until, attemptTimeoutMs) === undefined) {
          summary.deferred += list.length - i;
          return;
        }
        if (!(await claimDelivery(delivery, toWireTime(now()), toWireTime(now().getTime() + leaseSeconds * 1000)))) continue;
        const n = await getNotification(customer, delivery.notificationId);
        if (!n || n.deliveryDate !== undefined) {
          await removeDelivery(customer, delivery.notificationId);
          continue;
        }
        if (webhook?.status !== 'ENABLED') {
          const failure = webhook ? `the endpoint is disabled (${webhook.disabledReason ?? 'disabled'})` : 'the endpoint was removed';
          await putDeadLetter({ customer, notificationId: n.id, attempts: delivery.attempts, deadDate: stamp, lastFailure: failure });
          await removeDelivery(customer, n.id);
          summary.dead++;
          continue;
        }
        const attemptAt = now();
        const timeoutMs = attemptBudget(until, attemptTimeoutMs);
        if (timeoutMs === undefined) {
          // Claimed, but the reads took the time: its lease runs out and the next run takes it.
          summary.deferred += list.length - i;
          return;
        }
        const settled = await settle(delivery, true, await attempt(webhook, n, timeoutMs, attemptAt), attemptAt);
        if (settled.kind === 'delivered') summary.delivered++;
        else if (settled.kind === 'dead' || settled.kind === 'gone') summary.dead++;
        else summary.failed++;
        if (settled.kind === 'queued') {
          // The customer's later deliveries wait behind this one, so they keep their order.
          for (const rest of list.slice(i + 1)) await rescheduleDelivery({ ...rest, dueDate: settled.dueDate });
          return;
        }
        if (settled.kind === 'gone') return;
      }
    },
  );
  return summary;
}
