import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { kb, ms, percentile, table } from './report.ts';

/**
 * The 60,000-entry price list's first request, apart from the later ones (issue 38), for gzip and
 * for br, before its snapshot (the list read whole on every request: bench/pricelist-before.ts, as
 * at commit 7b91fca) and after (shared/pricing/price-list-snapshot.ts), in one run on one DynamoDB
 * Local. Each coding has a list of its own; for each, in this order: the list written, a fresh
 * function process answers it the old way (its first request is the first read of the partition),
 * the list's snapshot built as a load builds it, then a fresh function process answers it the new
 * way. Each process: its first request, then `runs` more (their median).
 */

interface Run {
  importMs: number;
  first: { ms: number; status: number; encoding?: string; wireBytes: number };
  later: number[];
}

const run = promisify(execFile);

async function fresh(path: 'before' | 'after', customer: string, coding: string, runs: number): Promise<Run> {
  const script = fileURLToPath(new URL('./pricelist-first.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, path, customer, coding, String(runs)], {
    env: process.env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Run;
}

export async function benchPriceListFirst(entries = 60_000, runs = 5): Promise<void> {
  const { writeBigPriceList } = await import('./big-data.ts');
  const { refreshPriceSnapshot } = await import('../shared/pricing/price-list-snapshot.ts');
  const rows: (string | number)[][] = [];
  for (const coding of ['gzip', 'br']) {
    const customer = `bench-first-${coding}`;
    await writeBigPriceList(customer, entries);
    const before = await fresh('before', customer, coding, runs);
    const t = performance.now();
    await refreshPriceSnapshot(customer);
    const snapshotMs = performance.now() - t;
    const after = await fresh('after', customer, coding, runs);
    for (const [path, r] of [
      ['before (the list read whole)', before],
      ['after (its snapshot)', after],
    ] as const) {
      const sorted = [...r.later].sort((a, b) => a - b);
      rows.push([
        coding,
        path,
        r.first.status,
        r.first.encoding ?? 'none',
        ms(r.importMs),
        ms(r.first.ms),
        ms(percentile(sorted, 50)),
        r.later.length,
        kb(r.first.wireBytes),
        path.startsWith('after') ? ms(snapshotMs) : '',
      ]);
    }
  }
  table(
    `Price list of ${entries.toLocaleString('en')} entries: a fresh function's first request apart from its later ones (ms; through the real handler, no gateway; each list read for the first time by the first request before)`,
    [
      'Accept-Encoding',
      'path',
      'status',
      'coding',
      'handler import',
      'first request',
      'later p50',
      'later runs',
      'wire KB',
      'snapshot built at load',
    ],
    rows,
    ['path'],
  );
}
