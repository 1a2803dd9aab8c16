import type { RecordSet, RecordSetChange } from './provider.ts';
import { recordSetKey } from './record-sets.ts';

/**
 * What to change at a DNS provider so that it serves what the table says: the desired record sets
 * against the served ones. Pure (external-dns's `plan`): no provider is called, so it is tested
 * on its own and both adapters share it.
 *
 * - A served set that is not desired is deleted, one that is missing or differs (TTL or values,
 *   compared as sets) is replaced whole; deletions come first, so a name that changes from an
 *   address to a CNAME is free when the CNAME arrives.
 * - The provider's own DNSSEC sets (RRSIG, NSEC, NSEC3, NSEC3PARAM), which some providers list, are
 *   never touched, nor the ACME challenge sets the certificate authority puts directly (`ownedElsewhere`).
 * - Values are compared as the provider gives them back: whitespace runs count as one space, and
 *   host names and hex are compared without regard to case (a provider may lower-case them);
 *   quoted strings (TXT, the value of CAA) keep their case.
 */

/** Record types a signing provider makes itself. */
const providerTypes: ReadonlySet<string> = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM']);

/**
 * Record sets another part of the service puts at the provider directly, which the table does not
 * hold: the ACME dns-01 challenge sets (`_acme-challenge.<name>` TXT) of open certificate orders.
 * The plan leaves them alone unless the zone itself holds a set of that name and type.
 */
export function ownedElsewhere(set: Pick<RecordSet, 'name' | 'type'>): boolean {
  return set.type === 'TXT' && set.name.toLowerCase().startsWith('_acme-challenge.');
}

/** A value as compared: one space between words, case folded outside quoted strings. */
export function comparableValue(value: string): string {
  let out = '';
  let quoted = false;
  let space = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (quoted) {
      out += ch;
      if (ch === '\\' && i + 1 < value.length) out += value[++i];
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === ' ' || ch === '\t') {
      space = out.length > 0;
      continue;
    }
    if (space) out += ' ';
    space = false;
    if (ch === '"') quoted = true;
    out += ch.toLowerCase();
  }
  return out;
}

/** Whether two record sets serve the same: same TTL, same values as sets. */
export function sameRecordSet(a: RecordSet, b: RecordSet): boolean {
  if (a.ttl !== b.ttl || a.values.length !== b.values.length) return false;
  const left = new Set(a.values.map(comparableValue));
  return left.size === new Set(b.values.map(comparableValue)).size && b.values.every((value) => left.has(comparableValue(value)));
}

/** The changes that make `served` into `desired`: deletions, then replacements, each set once. */
export function plan(desired: readonly RecordSet[], served: readonly RecordSet[]): RecordSetChange[] {
  const wanted = new Map(desired.map((set) => [recordSetKey(set), set]));
  const have = new Map(served.filter((set) => !providerTypes.has(set.type)).map((set) => [recordSetKey(set), set]));
  const deletes: RecordSetChange[] = [];
  const upserts: RecordSetChange[] = [];
  for (const [key, set] of have) if (!wanted.has(key) && !ownedElsewhere(set)) deletes.push({ action: 'delete', recordSet: set });
  for (const [key, set] of wanted) {
    const current = have.get(key);
    if (!current || !sameRecordSet(set, current)) upserts.push({ action: 'upsert', recordSet: set });
  }
  return [...deletes, ...upserts];
}
