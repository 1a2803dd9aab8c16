import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { createContact } from '../db/repositories/contacts.ts';
import { ObjectExists, ValidationError } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import { now, toWireTime } from '../time.ts';
import type { ContactView } from './contact-view.ts';
import { maxContacts, ownContact } from './own.ts';
import type { SplitContactBody } from './request.ts';
import { contactViewOf } from './view.ts';

/**
 * POST .../contacts/{handle}/split: a copy of the contact under `newHandle`, so that the two can
 * change apart (the WHMCS module splits a contact a registry refused to update). With `registries`,
 * the copy carries only those registries' properties; without, all of them. The original is left
 * as it is. Counted against the limit, in one transaction with `commitWith`; answers the new contact (201).
 */
export async function splitContact(
  caller: string,
  customer: string,
  handle: string,
  body: SplitContactBody,
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  const { contact } = await ownContact(caller, customer, handle, true);
  const at = toWireTime(now());
  const {
    upstreamHandle: _upstream,
    upstreamRevision: _upstreamRevision,
    validations: _validations,
    updatedDate: _updated,
    properties,
    registries: _registries,
    ...rest
  } = contact;
  const kept =
    properties && body.registries
      ? Object.fromEntries(Object.entries(properties).filter(([r]) => body.registries?.includes(r)))
      : properties;
  const copy: ContactRecord = {
    ...rest,
    handle: body.newHandle,
    ...(kept && Object.keys(kept).length > 0 ? { properties: kept } : {}),
    createdDate: at,
  };
  const view = contactViewOf(copy);
  const max = maxContacts();
  const written = await createContact(copy, max, itemsOf(commitWith(view)));
  if (written === 'exists') throw new ObjectExists(`Contact '${body.newHandle}' already exists.`, 409);
  if (written === 'full') {
    throw new ValidationError(`An address book holds at most ${max} contacts: delete contacts you no longer use first.`, [
      { field: 'newHandle', message: `would exceed the limit of ${max} contacts`, value: body.newHandle },
    ]);
  }
  return view;
}
