import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countAllRoundTrips, type RoundTrips } from '../bench/scenarios.ts';

/**
 * Issue 8: DynamoDB calls per request are deterministic, so they are asserted here exactly (the
 * benchmark, `npm run bench`, prints the same figures next to their budgets). Counted at the SDK
 * client, with a warm API key and warm caches, and attributed by partition: the request's own
 * data, the Idempotency-Key record, and the sandbox registry (a stand-in for the registry's EPP
 * interface). A change that adds a call fails here.
 */

type Expected = { own: number; idempotency?: number; registry?: number; commands: string[]; read?: number };

const queries = (n: number) => Array<string>(n).fill('Query');

const expected: Record<string, Expected> = {
  'provider info': { own: 1, commands: ['GetItem'] },
  'price list': { own: 1, commands: ['Query'] },
  'price list in USD (rates cached)': { own: 1, commands: ['Query'] },
  'zone (JSON)': { own: 1, commands: ['Query'] },
  'zone (zone file)': { own: 1, commands: ['Query'] },
  'process info, certificate': { own: 1, commands: ['GetItem'] },
  'process info, acme': { own: 1, commands: ['GetItem'] },
  // Reads: one BatchGet (registry, customer, contacts, template, domain, zone, running transfer)
  // and the price list's Query, in parallel; the registry is asked whether the name can move.
  'transfer, quote': { own: 2, registry: 1, commands: ['BatchGetItem', 'Query', 'GetItem'] },
  // Plus the registry's submission and one transaction recording the process with the registry's
  // first answer, the name's pending state (or the domain and zone) and the claimed ids.
  'transfer, completed at once': { own: 3, registry: 2, commands: ['BatchGetItem', 'Query', 'GetItem', 'GetItem', 'TransactWriteItems'] },
  'transfer, pending': { own: 3, registry: 2, commands: ['BatchGetItem', 'Query', 'GetItem', 'GetItem', 'TransactWriteItems'] },
  'transfer, pending, Idempotency-Key': {
    own: 3,
    idempotency: 2,
    registry: 2,
    commands: ['PutItem', 'BatchGetItem', 'Query', 'GetItem', 'GetItem', 'TransactWriteItems', 'UpdateItem'],
  },
  'process info, transfer': { own: 1, commands: ['GetItem'] },
  // One BatchGet (certificate, id counters, the zones of the CSR's names) and the price list's Query.
  'renew, quote': { own: 2, commands: ['BatchGetItem', 'Query'] },
  // Plus one transaction (certificate, process, DCV records in the zones, claimed process id).
  'renew, start': { own: 3, commands: ['BatchGetItem', 'Query', 'TransactWriteItems'] },
  'renew, start, Idempotency-Key': {
    own: 3,
    idempotency: 2,
    commands: ['PutItem', 'BatchGetItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
  },
  // The follow-up operations (issue 15). Reads: one GetItem of the process; the transfer info too;
  // the TLD info one BatchGet of the extension index; the provider one GetItem.
  process: { own: 1, commands: ['GetItem'], read: 1 },
  'transfer info': { own: 1, commands: ['GetItem'], read: 1 },
  'TLD info': { own: 1, commands: ['BatchGetItem'], read: 2 },
  provider: { own: 1, commands: ['GetItem'], read: 1 },
  // The list at 10,000 processes of one customer: a page reads what it shows; an exact status
  // reads its partition of the status index, an exact identifier its listing (and those
  // processes); detailStatus reads the running processes until it has a page; counting reads the
  // whole partition (1 MB a call); a deep offset reads every process it skips.
  'process list, first page (10,000 processes)': { own: 1, commands: ['Query'], read: 10 },
  'process list, exact status': { own: 1, commands: ['Query'], read: 10 },
  'process list, exact identifier': { own: 2, commands: ['Query', 'BatchGetItem'], read: 2 },
  'process list, detailStatus=SSL_REQUIRES_ATTENTION': { own: 4, commands: queries(4), read: 80 },
  'process list, exact status, total=true': { own: 2, commands: queries(2), read: 150 },
  'process list, total=true': { own: 11, commands: queries(11), read: 10_010 },
  'process list, offset 9990': { own: 10, commands: queries(10), read: 10_000 },
  // Cancel and resend: the process (strongly consistent), the registry's look and its record (a
  // stand-in for EPP), one transaction; a certificate's zones in one BatchGet; a DCV resend one
  // conditional update.
  'cancel, pending transfer': { own: 2, registry: 2, commands: ['GetItem', 'BatchGetItem', 'UpdateItem', 'TransactWriteItems'] },
  'cancel, certificate request': { own: 3, commands: ['GetItem', 'BatchGetItem', 'TransactWriteItems'] },
  'cancel, Idempotency-Key': {
    own: 2,
    idempotency: 2,
    registry: 2,
    commands: ['PutItem', 'GetItem', 'BatchGetItem', 'UpdateItem', 'TransactWriteItems', 'UpdateItem'],
  },
  'resend, FOA of a transfer': { own: 2, registry: 2, commands: ['GetItem', 'BatchGetItem', 'UpdateItem', 'TransactWriteItems'] },
  'resend, DCV e-mail': { own: 2, commands: ['GetItem', 'UpdateItem'] },
};

describe('DynamoDB round trips per request (warm API key)', () => {
  let results: RoundTrips[] = [];
  const result = (name: string) => {
    const r = results.find((x) => x.name === name);
    if (!r) throw new Error(`no scenario '${name}'`);
    return r;
  };

  it('runs every scenario without a Scan or an API-key lookup (the key is warm)', { timeout: 300_000 }, async () => {
    results = await countAllRoundTrips();
    for (const r of results) {
      expect({ name: r.name, scans: r.scans, authorizer: r.authorizer }).toEqual({ name: r.name, scans: 0, authorizer: 0 });
    }
    expect(Object.keys(expected).every((name) => results.some((r) => r.name === name))).toBe(true);
  });

  it.each(Object.entries(expected))('%s: exactly the expected calls', (name, e) => {
    const r = result(name);
    expect({ own: r.own, idempotency: r.idempotency, registry: r.registry, commands: r.commands }).toEqual({
      own: e.own,
      idempotency: e.idempotency ?? 0,
      registry: e.registry ?? 0,
      commands: e.commands,
    });
    // Items read, where they are the point (the list at scale).
    if (e.read !== undefined) expect({ name, read: r.read }).toEqual({ name, read: e.read });
  });

  it('answers every request with its expected status', () => {
    const statuses = results.filter((r) => r.status !== undefined).map((r) => [r.name, r.status]);
    expect(statuses).toEqual(
      results
        .filter((r) => r.status !== undefined)
        .map((r) => [r.name, r.name.startsWith('renew, start') || r.name.startsWith('transfer, pending') ? 202 : 200]),
    );
  });

  it('keeps every GET at exactly its calls (one, but for the listings), and renew within three calls of its own', () => {
    for (const r of results.filter((x) => x.budget.kind === 'exactly' || x.name.startsWith('renew'))) {
      expect({ name: r.name, withinBudget: r.withinBudget }).toEqual({ name: r.name, withinBudget: true });
    }
  });
});

describe('no Scan on any path', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });

  it('uses no Scan operation anywhere in the functions or the shared code', () => {
    const root = join(import.meta.dirname, '..');
    const offenders = [...sources(join(root, 'functions')), ...sources(join(root, 'shared'))].filter((file) =>
      /\b(Scan(Command|Input)?|paginateScan|ParallelScan)\b/.test(readFileSync(file, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')),
    );
    expect(offenders).toEqual([]);
  });
});
