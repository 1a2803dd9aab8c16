import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from '../db/client.ts';
import { getItem } from '../db/items.ts';
import { keys } from '../db/keys.ts';
import { getCertificateAuthority } from '../db/repositories/certificates.ts';
import { tableName } from '../db/table.ts';
import { ProcessRecord } from '../model/process.ts';
import { toWireTime } from '../time.ts';
import { authorityGateway } from './authority.ts';
import { OneTimeLinkRejected, redeemOneTimeLink } from './one-time-link.ts';

/**
 * The sandbox's side of a validation manager visit: the customer opened the one-time link and
 * answered the authority's questions. The link is accepted once; the process's ATTENTION checks
 * (organization, voice, agreement) are then resolved as the authority's gateway decides.
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
  const process = await getItem(keys.processById(processId), ProcessRecord, 'process');
  if (!process || (process.type !== 'certificate' && process.type !== 'acme')) throw new OneTimeLinkRejected('no such request');
  const authority = await getCertificateAuthority(authorityName);
  if (!authority) throw new OneTimeLinkRejected('no such authority');
  const current = v.parse(v.object({ validations: v.record(v.string(), v.unknown()) }), process.details).validations;
  const resolved = authorityGateway(authority).resolveAttention(current as never);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.processById(processId),
      UpdateExpression: 'SET details.validations = :validations, updatedDate = :now',
      ConditionExpression: 'updatedDate = :was',
      ExpressionAttributeValues: { ':validations': resolved, ':now': toWireTime(at), ':was': process.updatedDate },
    }),
  );
  return { processId, validations: resolved as Record<string, unknown> };
}
