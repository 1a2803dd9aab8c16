import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client.ts';
import { queryAll } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { TransactItem } from '../transactions.ts';
import type { Counted } from './process-counts.ts';

/**
 * Where a position of a customer's status listing lies, without counting the keys before it.
 *
 * A status listing (gsi2: one customer's processes of one status, in id order) changes in the
 * middle: a process enters it when its status changes to it, wherever its id falls, and leaves it
 * when its status changes again. So, unlike the customer's whole listing (marks in processes.ts), a
 * position there does not keep its process. What stays true is how many of the status's processes
 * have ids in a given range. Every process write that creates a process or changes its status (or
 * type) adds, in its own transaction, -1 to the blocks of the range its id falls in under the
 * status it leaves and +1 under the status it enters (an ADD: concurrent writes add up, none is
 * lost, and a failed transaction adds nothing). Two levels: a fine block of `fineBlockIds` ids and
 * a coarse one of `finesPerCoarse` fine blocks. Each block counts the status's processes (`n`) and
 * those of each type (`t:<type>`, so that a status with a type seeks as well).
 *
 * A position is then found by reading the status's coarse blocks (one Query of small items), the
 * fine blocks of the coarse block it falls in (one Query of at most `finesPerCoarse`), and counting
 * at most `fineBlockIds` keys from the start of the fine block. The blocks are checked before they
 * are trusted: the coarse blocks must add up to the status's kept count (process-counts.ts, exact,
 * written in the same transactions), and the fine blocks to their coarse block; where they do not
 * (a customer whose blocks `npm run admin -- migrate` has not built yet, a block a rebuild raced),
 * the listing counts its keys as before.
 */

/** Ids in a fine block. */
export const fineBlockIds = 64;
/** Fine blocks in a coarse block. */
export const finesPerCoarse = 64;
const entity = 'processBlock';

const fineOf = (id: number) => Math.floor(id / fineBlockIds);
const coarseOf = (id: number) => Math.floor(id / (fineBlockIds * finesPerCoarse));
const typeAttribute = (type: string) => `t:${type}`;

/** The changes (block key, attribute, delta) a process's move from `before` to `after` makes. */
function deltasOf(
  before: Counted | undefined,
  after: Counted | undefined,
): Map<string, { key: { pk: string; sk: string }; adds: Map<string, number> }> {
  const out = new Map<string, { key: { pk: string; sk: string }; adds: Map<string, number> }>();
  for (const [c, sign] of [
    [before, -1],
    [after, 1],
  ] as const) {
    if (!c) continue;
    for (const key of [
      keys.processBlock(c.customer, c.status, 'C', coarseOf(c.id)),
      keys.processBlock(c.customer, c.status, 'F', fineOf(c.id)),
    ]) {
      const id = `${key.pk}|${key.sk}`;
      const entry = out.get(id) ?? { key: { pk: key.pk, sk: key.sk }, adds: new Map<string, number>() };
      for (const attribute of ['n', typeAttribute(c.type)]) entry.adds.set(attribute, (entry.adds.get(attribute) ?? 0) + sign);
      out.set(id, entry);
    }
  }
  return out;
}

/**
 * The transaction items that move a process's blocks from `before` (absent: a new process) to
 * `after`: none when neither its status nor its type changed. Every process write adds them
 * (processes.ts, with the counts), so the blocks follow every writer.
 */
export function processBlockChanges(before: Counted | undefined, after: Counted | undefined): TransactItem[] {
  return [...deltasOf(before, after).values()].flatMap(({ key, adds }) => {
    const changed = [...adds].filter(([, n]) => n !== 0);
    if (changed.length === 0) return [];
    const names: Record<string, string> = { '#e': 'entity', '#v': 'version' };
    const values: Record<string, unknown> = { ':entity': entity, ':one': 1 };
    const clauses = changed.map(([attribute, n], i) => {
      names[`#a${i}`] = attribute;
      values[`:d${i}`] = n;
      return `#a${i} :d${i}`;
    });
    return [
      {
        Update: {
          TableName: tableName(),
          Key: key,
          UpdateExpression: `SET #e = :entity ADD ${clauses.join(', ')}, #v :one`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
  });
}

/** A block as read: its number, its count of the status's processes, and of the attribute sought. */
interface Block {
  block: number;
  n: number;
  of: number;
}

const blockOf = (item: Record<string, unknown>, attribute: string): Block => ({
  block: Number(String(item.sk).slice(2)),
  n: Number(item.n ?? 0),
  of: Number(item[attribute] ?? 0),
});

/** The coarse blocks of a status, in id order (one Query; more only past 1 MB, about 10,000 blocks). */
async function coarseBlocks(customer: string, status: string, attribute: string): Promise<{ blocks: Block[]; read: number }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
    ExpressionAttributeValues: { ':pk': keys.processBlocks(customer, status).pk, ':c': 'C#' },
  });
  return { blocks: items.map((item) => blockOf(item, attribute)), read: items.length };
}

/** The fine blocks of one coarse block, in id order (one Query of at most finesPerCoarse items). */
async function fineBlocks(customer: string, status: string, coarse: number, attribute: string): Promise<Block[]> {
  const first = coarse * finesPerCoarse;
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.processBlocks(customer, status).pk,
        ':from': keys.processBlock(customer, status, 'F', first).sk,
        ':to': keys.processBlock(customer, status, 'F', first + finesPerCoarse - 1).sk,
      },
    }),
  );
  return (out.Items ?? []).map((item) => blockOf(item, attribute));
}

/** A status listing's blocks as one request reads them: the matches in all, and where a match lies. */
export interface StatusBlocks {
  /** How many of the status's processes match (all of them, or those of the type). */
  total: number;
  /**
   * The fine block holding the match at `index` (0-based, in ascending id order): its first id
   * and last id, how many matches come before it and how many it holds; undefined past the last match, or when the
   * fine blocks do not add up to their coarse block (then the caller counts as before).
   */
  locate(index: number): Promise<{ firstId: number; lastId: number; before: number; within: number } | undefined>;
}

/**
 * The blocks of a customer's status listing, for its processes of `type` or all of them, when
 * they add up to the status's kept count (`kept`); undefined when they do not (not built yet, or
 * drifted): the listing then counts its keys.
 */
export async function readStatusBlocks(customer: string, status: string, kept: number, type?: string): Promise<StatusBlocks | undefined> {
  const attribute = type === undefined ? 'n' : typeAttribute(type);
  const { blocks } = await coarseBlocks(customer, status, attribute);
  if (blocks.reduce((sum, b) => sum + b.n, 0) !== kept) return undefined;
  const total = blocks.reduce((sum, b) => sum + b.of, 0);
  return {
    total,
    locate: async (index) => {
      if (index < 0 || index >= total) return undefined;
      let before = 0;
      for (const coarse of blocks) {
        if (before + coarse.of <= index) {
          before += coarse.of;
          continue;
        }
        const fines = await fineBlocks(customer, status, coarse.block, attribute);
        if (fines.reduce((sum, f) => sum + f.n, 0) !== coarse.n || fines.reduce((sum, f) => sum + f.of, 0) !== coarse.of) return undefined;
        for (const fine of fines) {
          if (before + fine.of > index) {
            return { firstId: fine.block * fineBlockIds, lastId: (fine.block + 1) * fineBlockIds - 1, before, within: fine.of };
          }
          before += fine.of;
        }
        return undefined;
      }
      return undefined;
    },
  };
}

/**
 * Builds a customer's blocks of one status afresh from its listing (`ids`: the status's processes
 * as the status index holds them, with their types), replacing each block only if no process write
 * changed it since `versions` were read (readBlockVersions, before the listing was read); blocks
 * no longer holding a process are set to zero the same way. Answers false when a write raced one:
 * read again and repeat.
 */
export async function writeStatusBlocks(
  customer: string,
  status: string,
  processes: readonly { id: number; type: string }[],
  versions: ReadonlyMap<string, number>,
): Promise<boolean> {
  const counted = new Map<string, Record<string, number>>();
  for (const p of processes) {
    for (const key of [keys.processBlock(customer, status, 'C', coarseOf(p.id)), keys.processBlock(customer, status, 'F', fineOf(p.id))]) {
      const counts = counted.get(key.sk) ?? {};
      counts.n = (counts.n ?? 0) + 1;
      counts[typeAttribute(p.type)] = (counts[typeAttribute(p.type)] ?? 0) + 1;
      counted.set(key.sk, counts);
    }
  }
  for (const sk of versions.keys()) if (!counted.has(sk)) counted.set(sk, { n: 0 });
  const { pk } = keys.processBlocks(customer, status);
  let raced = false;
  for (const [sk, counts] of counted) {
    const version = versions.get(sk);
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: { pk, sk, entity, version: (version ?? 0) + 1, ...counts },
          ConditionExpression: version === undefined ? 'attribute_not_exists(pk)' : 'version = :v',
          ...(version === undefined ? {} : { ExpressionAttributeValues: { ':v': version } }),
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      raced = true;
    }
  }
  return !raced;
}

/** The versions of a customer's blocks of one status, by sort key (read before its listing, for writeStatusBlocks). */
export async function readBlockVersions(customer: string, status: string): Promise<Map<string, number>> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.processBlocks(customer, status).pk },
    ConsistentRead: true,
  });
  return new Map(items.map((item) => [String(item.sk), Number(item.version ?? 0)]));
}
