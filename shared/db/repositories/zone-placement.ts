import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client.ts';
import { keyKinds, keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * The places a customer's items of a domain name's collection have beside the table, where the zone
 * GETs read them in one Query: the customer's partition of the name (gsi3, every such item) and of
 * the zone's id (gsi2, the zone's header, records and DNS standing). Written with every item since;
 * `npm run admin -- migrate` gives them to the items written before (placeOwnedItem).
 */

/** The kinds of item that have these places (the zone's only with the zone's id). */
const ownedEntities = new Set(['domain', 'zone', 'zoneRecord', 'zoneDns']);

/** The places an item should have: undefined when it is not a customer's item of a domain name's collection. */
function placesOf(item: Record<string, unknown>, zoneId: number | undefined): Record<string, string> | undefined {
  const pk = item.pk;
  if (!ownedEntities.has(String(item.entity)) || typeof pk !== 'string' || !pk.startsWith(keyKinds.domain)) return undefined;
  if (typeof item.customer !== 'string' || typeof item.sk !== 'string') return undefined;
  const domainName = pk.slice(keyKinds.domain.length);
  const customer = item.customer;
  const places: Record<string, string> = { gsi3pk: keys.ownDomainCollection(domainName, customer).gsi3pk };
  if (item.entity !== 'domain' && zoneId !== undefined) {
    places.gsi2pk = keys.ownZoneById(zoneId, customer).gsi2pk;
    places.gsi2sk = item.sk;
  }
  return places;
}

/** Whether an item lacks a place it should have (the zone's id: from its zone's header, read beside it). */
export function isUnplaced(item: Record<string, unknown>, zoneId: number | undefined): boolean {
  const places = placesOf(item, zoneId);
  return places !== undefined && Object.entries(places).some(([name, value]) => item[name] !== value);
}

/** Gives an item its places, if it is still the same customer's (its writer otherwise set them). False when it changed hands or is gone. */
export async function placeOwnedItem(item: Record<string, unknown>, zoneId: number | undefined): Promise<boolean> {
  const places = placesOf(item, zoneId);
  if (!places) return false;
  const names = Object.keys(places);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET ${names.map((name) => `${name} = :${name}`).join(', ')}`,
        ConditionExpression: 'customer = :customer',
        ExpressionAttributeValues: { ':customer': item.customer, ...Object.fromEntries(names.map((name) => [`:${name}`, places[name]])) },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
