import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { replaceContact } from '../db/repositories/contacts.ts';
import { ObjectStatusProhibitsOperation } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import { now, toWireTime } from '../time.ts';
import type { ContactView } from './contact-view.ts';
import { ownContact, writeAttempts } from './own.ts';
import type { ValidateContactBody } from './request.ts';
import { contactViewOf } from './view.ts';

/**
 * The contact validated for these categories now: each category's validation recorded with the
 * time and a version one above the category's last (the sandbox registries validate at once; a
 * category validated before is validated again).
 */
export function withValidations(contact: ContactRecord, categories: readonly string[], at: string): ContactRecord {
  const kept = (contact.validations ?? []).filter((x) => !categories.includes(x.category));
  const added = categories.map((category) => {
    const last = (contact.validations ?? []).find((x) => x.category === category);
    return { validatedOn: at, version: (last?.version ?? 0) + 1, category };
  });
  return { ...contact, validations: [...kept, ...added].sort((a, b) => a.category.localeCompare(b.category)), updatedDate: at };
}

/** POST .../contacts/{handle}/validate: validates the contact for the categories; answers it with its validations. */
export async function validateContact(
  caller: string,
  customer: string,
  handle: string,
  body: ValidateContactBody,
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  for (let attempt = 0; attempt < writeAttempts; attempt++) {
    const { contact, revision } = await ownContact(caller, customer, handle, true);
    const after = withValidations(contact, body.categories, toWireTime(now()));
    const view = contactViewOf(after);
    if ((await replaceContact(contact, after, revision, itemsOf(commitWith(view)))) === 'written') return view;
  }
  throw new ObjectStatusProhibitsOperation(`Contact '${handle}' is being changed by another request; try again.`);
}
