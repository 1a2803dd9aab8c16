import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from '@swc/core';
import { check, type Diagnostics } from 'recheck';

/**
 * Every regular expression of the project, for the ReDoS check (test/redos.test.ts): the literals
 * and `RegExp(...)` calls of the sources, found with a real TypeScript parser (swc), and the
 * patterns reachable from schema objects at run time (valibot's own, such as `v.email()`'s).
 */

/** A pattern and where it was found. */
export interface Pattern {
  source: string;
  flags: string;
  where: string;
}

/** The folders of code that runs in a function, the local server or the tools. */
export const codeFolders = ['shared', 'functions', 'infra', 'bench'];

/** Every .ts file under a folder. */
export function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? typescriptFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

type Node = Record<string, unknown> & { type?: string };

/** The text of a string literal argument, or undefined when the argument is computed. */
function literalText(argument: unknown): string | undefined {
  const expression = (argument as { expression?: Node } | undefined)?.expression;
  if (expression?.type === 'StringLiteral') return String(expression.value);
  if (expression?.type === 'TemplateLiteral' && (expression.expressions as unknown[]).length === 0) {
    return String(((expression.quasis as Node[])[0] as Node).cooked ?? '');
  }
  return undefined;
}

/**
 * The patterns of one source text: regex literals, and `RegExp(...)` / `new RegExp(...)` with
 * literal arguments. A RegExp built from a computed value cannot be checked: it is reported in
 * `computed`, so that the check fails rather than letting it pass unseen.
 */
export function patternsOfSource(text: string, file: string): { patterns: Pattern[]; computed: string[] } {
  const patterns: Pattern[] = [];
  const computed: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Node;
    if (n.type === 'RegExpLiteral') patterns.push({ source: String(n.pattern), flags: String(n.flags), where: file });
    if ((n.type === 'NewExpression' || n.type === 'CallExpression') && (n.callee as Node | undefined)?.type === 'Identifier') {
      if ((n.callee as Node).value === 'RegExp') {
        const args = (n.arguments as unknown[] | undefined) ?? [];
        const source = literalText(args[0]);
        const flags = args.length > 1 ? literalText(args[1]) : '';
        if (source === undefined || flags === undefined) computed.push(file);
        else patterns.push({ source, flags, where: file });
      }
    }
    for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
  };
  visit(parseSync(text, { syntax: 'typescript', target: 'es2022' }));
  return { patterns, computed };
}

/** The patterns of every source file of the code folders. */
export function patternsOfSources(root: string): { patterns: Pattern[]; computed: string[] } {
  const files = codeFolders.flatMap((folder) => typescriptFiles(join(root, folder)));
  const out = { patterns: [] as Pattern[], computed: [] as string[] };
  for (const file of files) {
    const found = patternsOfSource(readFileSync(file, 'utf8'), relative(root, file));
    out.patterns.push(...found.patterns);
    out.computed.push(...found.computed);
  }
  return out;
}

/** Every RegExp reachable from a value (a module's exports: schemas hold their patterns as `requirement`). */
export function patternsReachable(value: unknown, where: string, seen = new Set<unknown>()): Pattern[] {
  if (value instanceof RegExp) return [{ source: value.source, flags: value.flags, where }];
  if (!value || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return [];
  seen.add(value);
  const out: Pattern[] = [];
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    out.push(...patternsReachable(child, where, seen));
  }
  return out;
}

/**
 * recheck's verdict on a pattern, deterministic so that a run never differs from the last: a fixed
 * seed, and its fuzzing bounded by the characters its VM reads, never by time. Its default time
 * limits (250 ms to incubate a string, 1 s to run an attack) take a slow moment of a loaded machine
 * for a slow pattern: the spec's domain-name pattern, safe on every quiet run, was once called
 * polynomial by them with an attack V8 answers in 1 ms. An attack is a success at 10^7 characters
 * read (a linear pattern reads a few per character of its attack string, of at most 300,000).
 */
export function analyse(pattern: { source: string; flags: string }): Promise<Diagnostics> {
  return check(pattern.source, pattern.flags, {
    randomSeed: 1,
    timeout: 120_000,
    incubationTimeout: null,
    attackTimeout: null,
    attackLimit: 10_000_000,
    seedingTimeout: null,
  });
}
