import { readContact, recordUpstreamContact } from '../db/repositories/contacts.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import { registryGateway } from '../registry/select.ts';
import { upstreamHandleOf } from './upstream-handle.ts';

/**
 * Contacts at an upstream registry account (`REGISTRY_GATEWAY=rtr`, docs/contacts.md "Through an
 * upstream account"): every customer of this service keeps its own address book, and the upstream
 * account (`RTR_CUSTOMER`) holds one address book for all of them. A contact is mirrored there
 * under a handle of its own (upstreamHandleOf: the customer's and the contact's handles cannot
 * collide with another customer's) when something is about to name it upstream (a transfer, a
 * registration, a domain update), and again whenever it changed since; the handle and the revision
 * mirrored are stored on the contact. With the sandbox registry nothing is mirrored: a contact is
 * named by its own handle.
 */

/**
 * The handle under which the registry gateway knows the customer's contact `handle`, after making
 * sure it holds the contact as it now is: the handle itself with the sandbox; with an upstream
 * account, the mirrored contact's handle, created or updated upstream first when it was never
 * mirrored or changed since (one GetItem, and no upstream call, when it is up to date). For every
 * use case that names a contact to the registry: the transfer, the registration, the domain update.
 * A handle the customer does not have: 400 ObjectDoesNotExist. The upstream's refusal: 400 naming
 * the fields it refused.
 */
export async function ensureUpstreamContact(customer: string, handle: string): Promise<string> {
  const gateway = await registryGateway();
  if (!gateway.mirrorContact) return handle;
  const found = await readContact(customer, handle, true);
  if (!found) throw new ObjectDoesNotExist('Contact', handle, 'body');
  const { contact, revision } = found;
  if (contact.upstreamHandle !== undefined && contact.upstreamRevision === revision) return contact.upstreamHandle;
  const upstream = contact.upstreamHandle ?? upstreamHandleOf(customer, handle);
  await gateway.mirrorContact(contact, upstream, contact.upstreamHandle !== undefined);
  // Written meanwhile: the upstream holds what was read; the next use mirrors the newer one.
  await recordUpstreamContact(customer, handle, revision, upstream);
  return upstream;
}

/** The upstream handles of several contacts of a customer (each mirrored as ensureUpstreamContact does), by local handle. */
export async function ensureUpstreamContacts(customer: string, handles: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(handles)];
  const mapped = await Promise.all(unique.map((handle) => ensureUpstreamContact(customer, handle)));
  return new Map(unique.map((handle, i) => [handle, mapped[i] as string]));
}

/**
 * A change of a contact (`after`, to be written over `revision`) as it must reach the upstream
 * account: a contact mirrored there is updated there first (the registries of the domains it is
 * the registrant of follow the upstream's copy), and `after` records the revision it will be
 * written at as mirrored. A contact never mirrored is left alone (nothing upstream names it).
 * The upstream's refusal is thrown before anything is written.
 */
export async function mirrorChange(after: ContactRecord, revision: number): Promise<ContactRecord> {
  if (after.upstreamHandle === undefined) return after;
  const gateway = await registryGateway();
  if (!gateway.mirrorContact) return after;
  await gateway.mirrorContact(after, after.upstreamHandle, true);
  return { ...after, upstreamRevision: revision + 1 };
}

/**
 * Before a contact is deleted here: the upstream account's copy is deleted first, so that the
 * personal data it holds goes with it (a contact never mirrored, or with the sandbox: nothing to
 * do). A copy the upstream already lost is no error. While an upstream domain still names it (one
 * deleted here but still in the registry's redemption, say), the upstream refuses, and so does the
 * delete: 400 ObjectStatusProhibitsOperation, nothing deleted. A fault: 503, nothing deleted.
 */
export async function forgetUpstreamContact(contact: ContactRecord): Promise<void> {
  if (contact.upstreamHandle === undefined) return;
  const gateway = await registryGateway();
  if (!gateway.forgetContact) return;
  await gateway.forgetContact(contact.upstreamHandle);
}
