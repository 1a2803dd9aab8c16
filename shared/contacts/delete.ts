import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { contactUse, deleteContact as removeContact } from '../db/repositories/contacts.ts';
import { ObjectStatusProhibitsOperation } from '../errors.ts';
import { ownContact, writeAttempts } from './own.ts';
import { forgetUpstreamContact } from './upstream.ts';

/** What a delete answers: the handle gone (the route answers 204 without a body). */
export interface DeletedContact {
  handle: string;
}

/**
 * DELETE /v2/customers/{customer}/contacts/{handle}: removes a contact nothing uses any more.
 * While a domain of the customer names it (registrant or contact) or an open process (a transfer
 * in progress) will, the delete is refused, naming what uses it. A contact mirrored at an upstream
 * account is deleted there first (forgetUpstreamContact). One transaction with `commitWith`.
 */
export async function deleteContact(
  caller: string,
  customer: string,
  handle: string,
  commitWith: CommitWith<DeletedContact> = commitNothing,
): Promise<DeletedContact> {
  for (let attempt = 0; attempt < writeAttempts; attempt++) {
    const { contact, revision } = await ownContact(caller, customer, handle, true);
    const use = await contactUse(customer, handle);
    if (use) {
      const what = use.kind === 'domain' ? `the domain ${use.identifier}` : `a process on ${use.identifier} (a transfer in progress)`;
      throw new ObjectStatusProhibitsOperation(`Contact '${handle}' cannot be deleted: ${what} uses it.`);
    }
    // A copy mirrored at an upstream account goes first: a fault or refusal there deletes nothing here.
    await forgetUpstreamContact(contact);
    const outcome = { handle };
    if ((await removeContact(contact, revision, itemsOf(commitWith(outcome)))) === 'written') return outcome;
  }
  throw new ObjectStatusProhibitsOperation(`Contact '${handle}' is being changed by another request; try again.`);
}
