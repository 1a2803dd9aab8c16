import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { replaceContact } from '../db/repositories/contacts.ts';
import { ObjectStatusProhibitsOperation } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import { now, toWireTime } from '../time.ts';
import type { ContactView } from './contact-view.ts';
import { assertSameTarget } from './create.ts';
import { ownContact, writeAttempts } from './own.ts';
import type { UpdateContactBody } from './request.ts';
import { mirrorChange } from './upstream.ts';
import { contactViewOf } from './view.ts';

/** The optional fields an empty string removes. */
const removable = new Set(['organization', 'state', 'fax']);

/** The contact with the body's fields applied: only those sent change, `""` removes an optional one. */
export function applyUpdate(contact: ContactRecord, body: UpdateContactBody, at: string): ContactRecord {
  const { customer: _c, handle: _h, designatedAgent: _agent, ...fields } = body;
  const next: Record<string, unknown> = { ...contact };
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value === '' && removable.has(field)) delete next[field];
    else next[field] = value;
  }
  return { ...(next as ContactRecord), updatedDate: at };
}

/**
 * POST /v2/customers/{customer}/contacts/{handle}/update: changes the fields sent (`designatedAgent`
 * is accepted: no registry of this service asks for a change-of-registrant approval), written
 * only over the revision it read (read again and applied again when it changed meanwhile), in one
 * transaction with `commitWith`. Answers the contact as it now is.
 */
export async function updateContact(
  caller: string,
  customer: string,
  handle: string,
  body: UpdateContactBody,
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  assertSameTarget(customer, handle, body);
  for (let attempt = 0; attempt < writeAttempts; attempt++) {
    const { contact, revision } = await ownContact(caller, customer, handle, true);
    // Mirrored upstream: the upstream account's copy is updated first (its refusal writes nothing).
    const after = await mirrorChange(applyUpdate(contact, body, toWireTime(now())), revision);
    const view = contactViewOf(after);
    if ((await replaceContact(contact, after, revision, itemsOf(commitWith(view)))) === 'written') return view;
  }
  throw new ObjectStatusProhibitsOperation(`Contact '${handle}' is being changed by another request; try again.`);
}
