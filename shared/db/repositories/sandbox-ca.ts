import * as v from 'valibot';
import { WireTime } from '../../schemas/primitives.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * The sandbox authority's CA, one per table (so one per data dir under `npm start`, one per
 * deployed sandbox stage): its key and self-signed certificate are made once, on first use, and
 * kept in this item. The first writer wins (a conditional put), so two functions signing at once
 * sign with one CA. The key is a secret: it is never logged, answered or exported.
 */

const entity = 'sandboxCa';

export const SandboxCa = v.object({
  /** The CA's certificate (PEM). */
  certificate: v.string(),
  /** The CA's private key (PKCS#8 PEM). */
  privateKey: v.string(),
  createdDate: WireTime,
});
export type SandboxCa = v.InferOutput<typeof SandboxCa>;

/** The table's sandbox CA, if one was made (consistent: a CA is made right after a miss). */
export function getSandboxCa(): Promise<SandboxCa | undefined> {
  return getItem(keys.sandboxCa(), SandboxCa, entity, true);
}

/** Keeps the CA unless one is kept already; answers the one kept. */
export async function claimSandboxCa(ca: SandboxCa): Promise<SandboxCa> {
  if (await putItem(toItem(keys.sandboxCa(), entity, ca), true)) return ca;
  const kept = await getSandboxCa();
  if (!kept) throw new Error('The sandbox CA vanished while it was claimed');
  return kept;
}

/** Which table's CA the calls above read and keep (a process that signs for several tables caches one CA per table). */
export function sandboxCaTable(): string {
  return tableName();
}
