import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RegistryDomainRecord, RegistryTransferRecord } from '../../model/registry-domain.ts';
import { db } from '../client.ts';
import { getItem, parseItem, putItem, readItems, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * The sandbox registry's own state (shared/registry/sandbox.ts): one item per name it knows, read
 * by name, and beside it what it remembers of each transfer of that name (cancellation, FOA resends).
 */

const entity = 'registryDomain';
const transferEntity = 'registryTransfer';

/** Stores a sandbox registry domain (datasets, tests). With `ifAbsent`, an existing one is kept (false). */
export function putRegistryDomain(record: RegistryDomainRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.registryDomain(record.domainName), entity, record), ifAbsent);
}

/** A sandbox registry domain by name (one GetItem). */
export function getRegistryDomain(domainName: string): Promise<RegistryDomainRecord | undefined> {
  return getItem(keys.registryDomain(domainName), RegistryDomainRecord, entity);
}

/** Stores what the sandbox registry remembers of a transfer (datasets). With `ifAbsent`, an existing record is kept (false). */
export function putRegistryTransfer(record: RegistryTransferRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.registryTransfer(record.domainName, record.requestedDate), transferEntity, record), ifAbsent);
}

/** A sandbox registry domain and what it remembers of one transfer of it, in one strongly consistent BatchGet. */
export async function getRegistryDomainWithTransfer(
  domainName: string,
  requestedDate: string,
): Promise<{ domain?: RegistryDomainRecord; transfer?: RegistryTransferRecord }> {
  const items = await readItems(
    { domain: keys.registryDomain(domainName), transfer: keys.registryTransfer(domainName, requestedDate) },
    { consistent: true },
  );
  return {
    ...(items.domain ? { domain: parseItem(RegistryDomainRecord, entity, items.domain) } : {}),
    ...(items.transfer ? { transfer: parseItem(RegistryTransferRecord, transferEntity, items.transfer) } : {}),
  };
}

/** The update that creates a transfer's record if need be and sets its identity. */
function transferUpdate(domainName: string, requestedDate: string) {
  return {
    TableName: tableName(),
    Key: keys.registryTransfer(domainName, requestedDate),
    names: { '#entity': 'entity', '#domainName': 'domainName', '#requestedDate': 'requestedDate' },
    values: { ':entity': transferEntity, ':domainName': domainName, ':requestedDate': requestedDate },
    set: '#entity = :entity, #domainName = :domainName, #requestedDate = :requestedDate',
  };
}

/**
 * Records that the gaining registrar cancelled a transfer, once: a second cancellation keeps the
 * first's date. Answers the cancellation date that holds.
 */
export async function recordRegistryCancellation(domainName: string, requestedDate: string, at: string): Promise<string> {
  const u = transferUpdate(domainName, requestedDate);
  const out = await db().send(
    new UpdateCommand({
      TableName: u.TableName,
      Key: u.Key,
      UpdateExpression: `SET ${u.set}, cancelledDate = if_not_exists(cancelledDate, :at)`,
      ExpressionAttributeNames: u.names,
      ExpressionAttributeValues: { ...u.values, ':at': at },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return parseItem(RegistryTransferRecord, transferEntity, out.Attributes ?? {}).cancelledDate as string;
}

/** Records that the registry sent a transfer's FOA e-mail again, unless the transfer was cancelled (false then). */
export async function recordRegistryFoaResend(domainName: string, requestedDate: string, at: string): Promise<boolean> {
  const u = transferUpdate(domainName, requestedDate);
  try {
    await db().send(
      new UpdateCommand({
        TableName: u.TableName,
        Key: u.Key,
        UpdateExpression: `SET ${u.set}, foaResent = list_append(if_not_exists(foaResent, :none), :at)`,
        ConditionExpression: 'attribute_not_exists(cancelledDate)',
        ExpressionAttributeNames: u.names,
        ExpressionAttributeValues: { ...u.values, ':none': [], ':at': [at] },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Records a name as registered at the sandbox registry (`record` carries `registeredFor`), only if
 * nobody holds it: no record yet, one that is free to register, or one whose registration is
 * scripted to fail. False when someone was first.
 */
export async function claimRegistryDomain(record: RegistryDomainRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(keys.registryDomain(record.domainName), entity, record),
        // A name scripted to fail its registration stays free for the next one.
        ConditionExpression: 'attribute_not_exists(pk) OR registration = :available OR attribute_exists(createFails)',
        ExpressionAttributeValues: { ':available': 'available' },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
