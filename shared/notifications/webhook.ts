import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import { deleteWebhook, getWebhook, putWebhook, replaceWebhookSecrets } from '../db/repositories/webhooks.ts';
import {
  AuthorizationError,
  ConstraintViolation,
  ObjectDoesNotExist,
  ObjectStatusProhibitsOperation,
  ProviderUnavailable,
} from '../errors.ts';
import { rotationOverlapSeconds, type WebhookRecord, type WebhookSecret } from '../model/webhook.ts';
import { now, toWireTime } from '../time.ts';
import { endpointUrlProblem } from './endpoint-address.ts';
import { ownQueue } from './list.ts';
import { sealSecret } from './secret-box.ts';
import type { WebhookView } from './webhook-view.ts';

/**
 * A customer's webhook endpoint: registered (`PUT`, the secret answered once), shown (`GET`,
 * never the secret), removed (`DELETE`), its secret rotated (`POST .../rotate`: the new one
 * answered once, the old one signing beside it for a day). The caller's own customer only; a
 * change of where the notifications go (register, move, remove, rotate) needs the caller's
 * `MANAGE_WEBHOOK` permission as well, as acting as designated agent needs its own.
 */

const manageWebhookPermission = 'MANAGE_WEBHOOK';

/** The caller's own queue, and the permission to change where its notifications go (403 otherwise). */
function mayManage(caller: Pick<Principal, 'customer' | 'permissions'>, customer: string): void {
  ownQueue(caller.customer, customer);
  if (!caller.permissions.includes(manageWebhookPermission)) {
    throw new AuthorizationError(`Changing the webhook requires the ${manageWebhookPermission} permission.`);
  }
}

/** A fresh signing secret: `whsec_` and the base64 of 32 random bytes. */
function freshSecret(at: string): WebhookSecret {
  return { secret: `whsec_${randomBytes(32).toString('base64')}`, createdDate: at };
}

export function webhookViewOf(w: WebhookRecord, at: string): WebhookView {
  const previous = w.secrets.find((s) => s.expiresDate !== undefined && s.expiresDate > at);
  return {
    url: w.url,
    status: w.status,
    ...(w.disabledReason !== undefined ? { disabledReason: w.disabledReason } : {}),
    createdDate: w.createdDate,
    updatedDate: w.updatedDate,
    secretCreatedDate: w.secrets[0]?.createdDate ?? w.createdDate,
    ...(previous?.expiresDate !== undefined ? { previousSecretExpiresDate: previous.expiresDate } : {}),
    ...(w.lastDeliveryDate !== undefined ? { lastDeliveryDate: w.lastDeliveryDate } : {}),
    ...(w.lastFailureDate !== undefined ? { lastFailureDate: w.lastFailureDate } : {}),
    ...(w.lastFailure !== undefined ? { lastFailure: w.lastFailure } : {}),
  };
}

/** Registers (201, with the secret) or moves (200, without it) the caller's endpoint. */
export async function registerWebhook(
  caller: Pick<Principal, 'customer' | 'permissions'>,
  customer: string,
  url: string,
): Promise<{ view: WebhookView; created: boolean }> {
  mayManage(caller, customer);
  const problem = endpointUrlProblem(url);
  if (problem) throw new ConstraintViolation([{ field: 'url', message: problem }]);
  const at = toWireTime(now());
  const secret = freshSecret(at);
  // Stored sealed (envelope encryption: ./secret-box.ts); answered in the clear once, to its owner.
  const { webhook, created } = await putWebhook(customer, url, await sealSecret(customer, secret), at);
  const view = webhookViewOf(webhook, at);
  return { view: created ? { ...view, secret: secret.secret } : view, created };
}

export async function showWebhook(caller: string, customer: string): Promise<WebhookView> {
  ownQueue(caller, customer);
  const webhook = await getWebhook(customer);
  if (!webhook) throw new ObjectDoesNotExist('Webhook', customer);
  return webhookViewOf(webhook, toWireTime(now()));
}

export async function removeWebhook(caller: Pick<Principal, 'customer' | 'permissions'>, customer: string): Promise<void> {
  mayManage(caller, customer);
  if (!(await deleteWebhook(customer))) throw new ObjectDoesNotExist('Webhook', customer);
}

/**
 * A new secret; the current one keeps signing beside it for rotationOverlapSeconds. Every secret a
 * rotation answers signs what follows through its overlap, so a rotation while the previous secret
 * still signs (it would drop a secret already handed out) is refused, and of concurrent rotations
 * one wins (the item's version) and the others are refused the same way.
 */
export async function rotateWebhookSecret(caller: Pick<Principal, 'customer' | 'permissions'>, customer: string): Promise<WebhookView> {
  mayManage(caller, customer);
  for (let attempt = 0; attempt < 3; attempt++) {
    const webhook = await getWebhook(customer);
    if (!webhook) throw new ObjectDoesNotExist('Webhook', customer);
    const at = now();
    const stamp = toWireTime(at);
    const secret = freshSecret(stamp);
    const current = webhook.secrets.find((s) => s.expiresDate === undefined);
    const overlapping = webhook.secrets.find((s) => s.expiresDate !== undefined && s.expiresDate > stamp);
    if (overlapping) {
      throw new ObjectStatusProhibitsOperation(
        `The secret was rotated at ${current?.createdDate ?? webhook.updatedDate}; the previous one signs beside it until ${overlapping.expiresDate}. Rotate again after that: a rotation now would stop a secret already handed out.`,
      );
    }
    const kept = current ? [{ ...current, expiresDate: toWireTime(at.getTime() + rotationOverlapSeconds * 1000) }] : [];
    const secrets = [await sealSecret(customer, secret), ...kept];
    if (await replaceWebhookSecrets(customer, secrets, webhook.version, stamp)) {
      return { ...webhookViewOf({ ...webhook, secrets, updatedDate: stamp, version: webhook.version + 1 }, stamp), secret: secret.secret };
    }
  }
  throw new ProviderUnavailable('The webhook kept changing while its secret was rotated; retry.', 1);
}
