import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse, type Pattern, patternsOfSource, patternsOfSources, patternsReachable, typescriptFiles } from './support/patterns.ts';

/**
 * No regular expression of ours backtracks super-linearly (ReDoS). Every pattern of the code
 * (shared/, functions/, infra/, bench/: literals and RegExp(...) calls, found by parsing the
 * sources) and every pattern the schemas hold at run time (valibot's built-in ones included) goes
 * through recheck, a ReDoS analyser (automata theory, and fuzzing where a pattern has
 * backreferences); anything but "safe" fails, with the attack string recheck found. Checking a
 * pattern costs tens of milliseconds, so this runs in CI with the rest of the suite.
 */

const root = join(import.meta.dirname, '..');

/** Modules whose exports hold the schemas: request and response schemas, entities, primitives, views. */
function schemaModules(): string[] {
  const functions = typescriptFiles(join(root, 'functions')).filter((f) => f.endsWith('/schema.ts') || f.endsWith('/openapi.ts'));
  const shared = typescriptFiles(join(root, 'shared')).filter(
    (f) => /\/(model|schemas)\//.test(f) || f.endsWith('-view.ts') || f.endsWith('request.ts'),
  );
  return [...functions, ...shared];
}

async function schemaPatterns(): Promise<Pattern[]> {
  const out: Pattern[] = [];
  for (const file of schemaModules()) out.push(...patternsReachable(await import(file), relative(root, file)));
  return out;
}

/** The patterns recheck does not call safe, with its verdict and attack. */
async function unsafe(patterns: Pattern[]): Promise<string[]> {
  const unique = new Map<string, Pattern>();
  for (const p of patterns) if (!unique.has(`${p.flags}/${p.source}`)) unique.set(`${p.flags}/${p.source}`, p);
  const findings: string[] = [];
  for (const p of unique.values()) {
    const verdict = await analyse(p);
    if (verdict.status !== 'safe') {
      const detail =
        verdict.status === 'vulnerable'
          ? `${verdict.complexity.type}, attack ${JSON.stringify(verdict.attack.pattern)}`
          : `${verdict.status}: ${'error' in verdict ? JSON.stringify(verdict.error) : ''}`;
      findings.push(`${p.where}: /${p.source}/${p.flags} is ${detail}`);
    }
  }
  return findings;
}

describe('ReDoS: no super-linear regular expression in our code or schemas', () => {
  it('finds no pattern in the sources that backtracks super-linearly, and no pattern built from a computed value', async () => {
    const { patterns, computed } = patternsOfSources(root);
    expect(patterns.length).toBeGreaterThan(30);
    expect(computed).toEqual([]);
    expect(await unsafe(patterns)).toEqual([]);
  }, 120_000);

  it('finds no pattern in the schemas (valibot built-ins included) that backtracks super-linearly', async () => {
    const patterns = await schemaPatterns();
    expect(patterns.some((p) => p.where === 'shared/schemas/primitives.ts')).toBe(true);
    expect(await unsafe(patterns)).toEqual([]);
  }, 120_000);

  it('would fail on a super-linear pattern: the PEM pattern csr.ts used to have, nested and overlapping quantifiers', async () => {
    const oldPem = String.raw`-----BEGIN ([^\n]+?)-----\n(?:(?:[^:\n]+: [^\n]+\n(?: +[^\n]+\n)*)+)?\n?((?:[A-Za-z0-9+/=]+\n)+)-----END \1-----`;
    const found = await unsafe([
      { source: oldPem, flags: '', where: 'old csr.ts' },
      { source: '^(a+)+$', flags: '', where: 'nested' },
      { source: String.raw`^\s*(\w+\s*)*,$`, flags: '', where: 'overlapping' },
      { source: '^[a-z0-9-]+$', flags: 'i', where: 'linear' },
    ]);
    expect(found.map((f) => f.slice(0, f.indexOf(':')))).toEqual(['old csr.ts', 'nested', 'overlapping']);
    expect(found[0]).toContain('polynomial');
  }, 120_000);

  it('would see a pattern added to the sources, as a literal or a RegExp call, and refuse one built from a variable', () => {
    const { patterns, computed } = patternsOfSource(
      [
        'const a = /^(x+)+y$/u;',
        "const b = new RegExp('^[a-z]+$', 'i');",
        'const c = RegExp(`^\\\\d+$`);',
        'const d = new RegExp(userInput);',
        "const e = 'not /a regex/ in a string';",
        '// /not a regex in a comment/',
      ].join('\n'),
      'added.ts',
    );
    expect(patterns).toEqual([
      { source: '^(x+)+y$', flags: 'u', where: 'added.ts' },
      { source: '^[a-z]+$', flags: 'i', where: 'added.ts' },
      { source: '^\\d+$', flags: '', where: 'added.ts' },
    ]);
    expect(computed).toEqual(['added.ts']);
  });
});
