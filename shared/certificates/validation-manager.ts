import * as v from 'valibot';
import { recordValidations } from '../db/repositories/certificate-requests.ts';
import { getCertificateAuthority } from '../db/repositories/certificates.ts';
import { getProcessById } from '../db/repositories/processes.ts';
import { toWireTime } from '../time.ts';
import { chosenAuthority } from './authorities.ts';
import { answeredValidationManager } from './authority-sandbox.ts';
import { OneTimeLinkRejected, redeemOneTimeLink } from './one-time-link.ts';

/**
 * A visit to the sandbox authority's validation manager: the customer opened the one-time link
 * and answered the authority's questions. The link is accepted once; the process's ATTENTION
 * checks (organization, voice, agreement) are then VALIDATED. This is the sandbox's simulation of
 * a CA's own web page (authority-sandbox.ts), not a call through the authority port: a real CA's
 * validation manager is on its side, and its outcome reaches the process through `advance`.
 */
export async function completeValidationManager(
  link: string,
  at: Date,
): Promise<{ processId: number; validations: Record<string, unknown> }> {
  let token: string | null;
  try {
    token = new URL(link).searchParams.get('token');
  } catch {
    token = link;
  }
  if (!token) throw new OneTimeLinkRejected('malformed link');
  const { processId, authority: authorityName } = await redeemOneTimeLink(token, at);
  const process = await getProcessById(processId);
  if (!process || (process.type !== 'certificate' && process.type !== 'acme')) throw new OneTimeLinkRejected('no such request');
  const authority = await getCertificateAuthority(authorityName);
  if (!authority?.validationManager || chosenAuthority !== 'sandbox') throw new OneTimeLinkRejected('no such validation manager');
  const current = v.parse(v.object({ validations: v.record(v.string(), v.unknown()) }), process.details).validations;
  const resolved = answeredValidationManager(current as never);
  if (!(await recordValidations(process, resolved, toWireTime(at), false))) {
    throw new Error(`Process ${processId} changed while its validation manager visit was recorded`);
  }
  return { processId, validations: resolved as Record<string, unknown> };
}
