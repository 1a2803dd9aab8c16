import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stageProblems } from '../infra/stages.ts';
import { synthCommand } from '../infra/synth.ts';

/**
 * The operator's `npm run synth`: the stage named on its command line and only that one, `--quiet`
 * quiet, each stack's resources printed, and a stage that cannot be read stopping it with the
 * problems in the stage file's words and no stack trace.
 */

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Runs `command` and answers its exit code and everything it printed. */
async function outcome(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** The app as the CDK CLI runs it (it hands the context and the output folder in the environment), bundling skipped. */
function app(stage: string, env: Record<string, string> = {}) {
  const outdir = mkdtempSync(join(tmpdir(), 'synth-'));
  folders.push(outdir);
  return outcome(tsx, ['infra/app.ts'], {
    CDK_CONTEXT_JSON: JSON.stringify({ stage, 'aws:cdk:bundling-stacks': [] }),
    CDK_OUTDIR: outdir,
    ...env,
  });
}

describe('npm run synth', () => {
  it('synthesizes sandbox when no stage is named, and only the stage named otherwise', () => {
    expect(synthCommand([])).toEqual({ cdk: ['synth', '--quiet', '-c', 'stage=sandbox'], quiet: false });
    for (const named of [
      ['-c', 'stage=production'],
      ['--context', 'stage=production'],
      ['-c=stage=production'],
      ['--context=stage=production'],
    ]) {
      const { cdk } = synthCommand(named);
      expect(cdk, named.join(' ')).toEqual(['synth', '--quiet', ...named]);
      expect(cdk.join(' '), named.join(' ')).not.toContain('sandbox');
    }
    // Another context key is not a stage.
    expect(synthCommand(['-c', 'keyRateLimit=10']).cdk).toEqual(['synth', '--quiet', '-c', 'stage=sandbox', '-c', 'keyRateLimit=10']);
    expect(synthCommand(['--quiet', '-c', 'stage=production'])).toEqual({
      cdk: ['synth', '--quiet', '-c', 'stage=production'],
      quiet: true,
    });
    expect(synthCommand(['-q']).quiet).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.synth).not.toContain('stage=');
  });

  it('prints the resources of every stack of the 500 CloudFormation takes, and nothing of them with REGISTRAR_SYNTH_QUIET', async () => {
    const loud = await app('sandbox');
    expect(loud.code, loud.output).toBe(0);
    expect(loud.output).toContain('Resources per stack (CloudFormation takes at most 500):');
    expect(loud.output).toMatch(/^ {2}Registrar-sandbox +\d+ of 500, \d+ left$/m);
    expect(loud.output).toMatch(/^ {2}Registrar-sandbox\/RoutesProcesses +\d+ of 500, \d+ left$/m);
    const quiet = await app('sandbox', { REGISTRAR_SYNTH_QUIET: '1' });
    expect(quiet.code, quiet.output).toBe(0);
    expect(quiet.output).not.toContain('Resources per stack');
  }, 240_000);

  it('stops on a stage it has no file for, saying which there are, without a stack trace; --quiet shows it too', async () => {
    const { code, output } = await app('staging');
    expect(code).toBe(1);
    expect(output).toContain(
      'Choose the stage to synthesize or deploy: -c stage=<name>, one of production, sandbox, sandbox-upstream-ote (got "staging")',
    );
    expect(output).not.toMatch(/^\s+at /m);
    const quiet = await outcome(tsx, ['infra/synth.ts', '--quiet', '-c', 'stage=staging']);
    expect(quiet.code).not.toBe(0);
    expect(quiet.output).toContain('(got "staging")');
    expect(quiet.output).not.toMatch(/^\s+at /m);
  }, 240_000);

  it("names a stage file's problems in the file's words, not valibot's", () => {
    const file = JSON.parse(readFileSync(join(root, 'stages', 'sandbox-upstream-ote.json'), 'utf8'));
    delete file.integrations.registry.customer;
    file.dns.nameServers = 'ns1.example.net';
    file.alarmEmail = 5;
    file.alarmEmails = 'ops@example.net';
    const problems = stageProblems(file);
    expect(problems).toEqual(
      expect.arrayContaining([
        'integrations.registry.customer: is missing: the setting is required',
        'dns.nameServers: must be a list, not "ns1.example.net"',
        'alarmEmail: must be a string, not 5',
        'alarmEmails: is not a setting of this place in the file (misspelt, or misplaced)',
      ]),
    );
    expect(problems.join('\n')).not.toMatch(/Invalid (key|type)|Expected/);
  });
});
