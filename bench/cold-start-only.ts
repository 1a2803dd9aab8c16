/**
 * Only the cold-start section of the benchmark (bench/cold-start.ts), without the rest of
 * `npm run bench` (no DynamoDB Local needed): `npx tsx bench/cold-start-only.ts [rounds]` (default 15).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { arch } from 'node:process';
import { benchColdStart } from './cold-start.ts';

const outDir = mkdtempSync(join(tmpdir(), 'registrar-cold-start-'));
try {
  console.log(`# cold start: ${new Date().toISOString().slice(0, 19)}Z`);
  console.log(
    `machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}; load average at start ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  await benchColdStart(outDir, Number(process.argv[2] ?? 15), 250 * 1024);
  console.log(
    `load average at end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
