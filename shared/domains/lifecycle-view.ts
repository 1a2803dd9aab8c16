import * as v from 'valibot';
import { DomainName, WireTime } from '../schemas/primitives.ts';

/** What a renewal and a restore answer (the real API's `{domainName, expiryDate}`). */
export const ExpiryView = v.strictObject({
  domainName: DomainName,
  expiryDate: v.pipe(WireTime, v.description('The expiry after the renewal or restore.')),
});
export type ExpiryView = v.InferOutput<typeof ExpiryView>;

/** What a deletion answers: the name (the domain is in its redemption period, restorable). */
export const DeletedView = v.strictObject({ domainName: DomainName });
export type DeletedView = v.InferOutput<typeof DeletedView>;
