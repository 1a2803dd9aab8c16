/** Printing and timing helpers of the benchmark (bench/run.ts, bench/process-list-only.ts). */

/** Prints an aligned Markdown table; the first column and any column named in `left` are left-aligned. */
export function table(title: string, head: string[], rows: (string | number)[][], left: string[] = []): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const isLeft = (i: number) => i === 0 || left.includes(head[i] ?? '');
  const line = (r: string[]) => `| ${r.map((c, i) => (isLeft(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  console.log(`\n### ${title}\n`);
  console.log(line(head));
  console.log(`|${widths.map((w, i) => (isLeft(i) ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export const ms = (n: number) => n.toFixed(2);
export const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** Swallows stdout (the functions' log lines) while `fn` runs; the lines are still built and written to a sink. */
export async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await fn();
  } finally {
    process.stdout.write = write;
  }
}
