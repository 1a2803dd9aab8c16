import type { TableCall } from './sdk-calls.ts';

/**
 * What a function did to the table, in IAM terms: the DynamoDB actions its calls need (a
 * transaction needs the action of each of its items: PutItem, UpdateItem, DeleteItem,
 * ConditionCheckItem), the kinds of item it touched (partition key prefixes, up to `#`), and
 * whether it queried the index.
 */
export interface ObservedUse {
  actions: Set<string>;
  kinds: Set<string>;
  index: boolean;
}

const single: Record<string, string> = {
  GetItemCommand: 'GetItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetItemCommand: 'BatchGetItem',
  BatchWriteItemCommand: 'BatchWriteItem',
  PutItemCommand: 'PutItem',
  UpdateItemCommand: 'UpdateItem',
  DeleteItemCommand: 'DeleteItem',
  TransactGetItemsCommand: 'GetItem',
};

const transactionItem: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** The kind of item a partition key names: its prefix up to and including the first `#` (`APIKEY#`), or the whole key. */
export function kindOf(partition: string): string {
  const hash = partition.indexOf('#');
  return hash < 0 ? partition : partition.slice(0, hash + 1);
}

/** Adds what one call did to `use`. */
export function observe(use: ObservedUse, call: TableCall): void {
  if (call.command === 'TransactWriteItemsCommand') {
    for (const item of (call.input.TransactItems as Record<string, unknown>[] | undefined) ?? []) {
      for (const type of Object.keys(item)) if (transactionItem[type]) use.actions.add(transactionItem[type]);
    }
  } else {
    use.actions.add(single[call.command] ?? call.command);
  }
  if (call.input.IndexName !== undefined) use.index = true;
  for (const partition of call.partitions) use.kinds.add(kindOf(partition));
}

export function emptyUse(): ObservedUse {
  return { actions: new Set(), kinds: new Set(), index: false };
}
