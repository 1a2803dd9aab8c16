import { join } from 'node:path';
import { baselineEntry, bundle, importTimes } from './bundles.ts';

/**
 * What @middy/http-json-body-parser adds to the cold start of the functions that read a JSON body
 * (transfer, renew, process-resend): the baseline bundle (the document client alone) against the
 * baseline with the parser beside it (bench/json-parser-entry.ts), each imported in a fresh node
 * process, round-robin, median of `runs`. Answers the figures (ms; bytes).
 */
export async function jsonParserImportCost(
  outDir: string,
  runs: number,
): Promise<{ baselineMs: number; withParserMs: number; addedMs: number; ratio: number; addedBytes: number }> {
  const base = await bundle(baselineEntry, outDir, 'parser-cost-baseline');
  const withParser = await bundle(join('bench', 'json-parser-entry.ts'), outDir, 'parser-cost-with-parser');
  const samples = { base: [] as number[], withParser: [] as number[] };
  for (let round = 0; round < runs; round++) {
    samples.base.push(...(await importTimes(base.file, 1)));
    samples.withParser.push(...(await importTimes(withParser.file, 1)));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const baselineMs = median(samples.base);
  const withParserMs = median(samples.withParser);
  return {
    baselineMs,
    withParserMs,
    addedMs: withParserMs - baselineMs,
    ratio: withParserMs / baselineMs,
    addedBytes: withParser.bytes - base.bytes,
  };
}
