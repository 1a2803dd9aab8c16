import { baselineEntry, bundle, importTimes, stackFunctions } from './bundles.ts';
import { kb, ms, percentile, table } from './report.ts';

/**
 * Cold start (docs/performance.md): every function of the stack (routes, jobs, stream consumers,
 * the authorizer) bundled as deployed, weighed, and its import timed in a fresh node per import
 * against the baseline (the document client alone). Each round imports every bundle once, so a
 * slow moment of the machine is shared. Budgets: a GET function imports within 1.3x the
 * baseline, any other within 1.5x; a bundle weighs at most `bundleBytes`.
 */

const mark = (ok: boolean) => (ok ? 'ok' : 'OVER');
/** Import-time budgets against the baseline. */
export const importBudgets = { get: 1.3, other: 1.5 } as const;

/** One function's figures. */
export interface ColdStart {
  id: string;
  bytes: number;
  importMs: number;
  ratio: number;
  budget: number;
  ok: boolean;
}

/** Builds and times every function (`runs` rounds); prints the table and answers the figures. */
export async function benchColdStart(outDir: string, runs: number, bundleBytes: number): Promise<ColdStart[]> {
  const median = (samples: number[]) =>
    percentile(
      [...samples].sort((x, y) => x - y),
      50,
    );
  const base = await bundle(baselineEntry, outDir, 'baseline');
  const baseUntrimmed = await bundle(baselineEntry, outDir, 'baseline-untrimmed', false);
  const functions = [];
  for (const f of stackFunctions()) {
    functions.push({
      id: f.id,
      budget: f.get ? importBudgets.get : importBudgets.other,
      built: await bundle(f.entry, outDir, f.id),
      untrimmed: await bundle(f.entry, outDir, `${f.id}-untrimmed`, false),
    });
  }
  const files = [base.file, baseUntrimmed.file, ...functions.map((f) => f.built.file)];
  const samples = new Map<string, number[]>(files.map((f) => [f, []]));
  // A bundle that fails to load is a failed row; the others go on.
  const failed = new Map<string, string>();
  for (let round = 0; round < runs; round++) {
    for (const file of files) {
      if (failed.has(file)) continue;
      try {
        samples.get(file)?.push(...(await importTimes(file, 1)));
      } catch (error) {
        failed.set(
          file,
          ((error as { stderr?: string }).stderr ?? (error as Error).message).split('\n').find((l) => l.startsWith('Error')) ?? 'failed',
        );
      }
    }
  }
  const baseTime = median(samples.get(base.file) ?? []);
  const baseUntrimmedTime = median(samples.get(baseUntrimmed.file) ?? []);
  const rows: (string | number)[][] = [
    [
      'baseline: document client only',
      kb(base.bytes),
      kb(baseUntrimmed.bytes),
      '1.00x',
      `<= ${kb(bundleBytes)}`,
      mark(base.bytes <= bundleBytes),
      ms(baseTime),
      '1.00x',
      '',
      '',
    ],
  ];
  const out: ColdStart[] = [];
  for (const { id, budget, built, untrimmed } of functions) {
    const failure = failed.get(built.file);
    if (failure !== undefined) {
      out.push({ id, bytes: built.bytes, importMs: Number.NaN, ratio: Number.NaN, budget, ok: false });
      rows.push([id, kb(built.bytes), kb(untrimmed.bytes), '', '', '', `failed: ${failure.slice(0, 80)}`, '', `<= ${budget}x`, 'OVER']);
      continue;
    }
    const time = median(samples.get(built.file) ?? []);
    const ratio = time / baseTime;
    out.push({ id, bytes: built.bytes, importMs: time, ratio, budget, ok: ratio <= budget });
    rows.push([
      id,
      kb(built.bytes),
      kb(untrimmed.bytes),
      `${(built.bytes / base.bytes).toFixed(2)}x`,
      `<= ${kb(bundleBytes)}`,
      mark(built.bytes <= bundleBytes),
      ms(time),
      `${ratio.toFixed(2)}x`,
      `<= ${budget}x`,
      mark(ratio <= budget),
    ]);
  }
  table(
    `Cold start: bundles as deployed (esbuild, ESM, node24, minified, SDK bundled; KB = 1024 bytes) and import time (fresh node --enable-source-maps per import, median of ${runs} rounds over all bundles; budget 1.3x for GET functions, 1.5x for the others)`,
    ['function', 'KB', 'KB untrimmed', 'size vs baseline', 'budget', '', 'import ms', 'vs baseline', 'budget', ''],
    rows,
  );
  console.log(
    `\nUntrimmed = without the Lambda-only substitutions of infra/bundling.ts (env-only credentials, no event streams). Baseline untrimmed: ${kb(baseUntrimmed.bytes)} KB, import ${ms(baseUntrimmedTime)} ms.`,
  );
  const over = out.filter((f) => !f.ok).map((f) => f.id);
  console.log(
    `Import time within budget: ${out.length - over.length} of ${out.length} functions${over.length > 0 ? `; OVER: ${over.join(', ')}` : ''}.`,
  );
  return out;
}
