import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run synth [-- options]`: `cdk synth` of one stage, its template not printed (cdk.out holds
 * it), followed by the resources of every stack of CloudFormation's 500 (infra/app.ts).
 * - Without `-c stage=<name>`, the stage is `sandbox`; with it, that stage only.
 * - `--quiet` (`-q`) prints nothing unless the synth fails, and then everything it printed.
 * Every other option goes to `cdk synth` as it is.
 */

export interface SynthCommand {
  /** The arguments of `cdk`. */
  cdk: string[];
  quiet: boolean;
}

/** Whether the arguments name a stage (`-c stage=x`, `--context stage=x`, `-c=stage=x`, `--context=stage=x`). */
function namesStage(args: readonly string[]): boolean {
  return args.some(
    (arg, i) => (/^stage=/.test(arg) && ['-c', '--context'].includes(args[i - 1] ?? '')) || /^(?:-c|--context)=stage=/.test(arg),
  );
}

/** What `npm run synth -- <args>` runs. */
export function synthCommand(args: readonly string[]): SynthCommand {
  const quiet = args.some((arg) => arg === '--quiet' || arg === '-q');
  const rest = args.filter((arg) => arg !== '--quiet' && arg !== '-q');
  return { cdk: ['synth', '--quiet', ...(namesStage(rest) ? [] : ['-c', 'stage=sandbox']), ...rest], quiet };
}

async function main(): Promise<void> {
  const { cdk, quiet } = synthCommand(process.argv.slice(2));
  const bin = join(import.meta.dirname, '..', 'node_modules', '.bin', 'cdk');
  const child = spawn(bin, cdk, {
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...(quiet ? { REGISTRAR_SYNTH_QUIET: '1' } : {}) },
  });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  const code = await new Promise<number>((resolve) => child.on('close', (status) => resolve(status ?? 1)));
  if (code !== 0 && quiet) process.stderr.write(Buffer.concat(output));
  process.exitCode = code;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
