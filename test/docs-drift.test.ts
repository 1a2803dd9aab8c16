import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { drawnRoutesBox, routeDocFiles, withRoutesBox } from '../infra/route-docs.ts';
import { stageNames } from '../infra/stages.ts';
import { table } from '../shared/db/table.ts';
import { errorBodies } from '../shared/http/api-docs.ts';
import { matchRoute, routes } from '../shared/routes.ts';

/**
 * The docs point at what the repository holds and say what the code does: every `spec N` /
 * `contract N` citation resolves to a heading of docs/api.md; the stage names, the routes (the
 * diagrams' routes box is generated from the route table: `npm run route-docs`), the
 * table's indexes and the admin commands the README and docs show are the ones the code has.
 */

const root = new URL('..', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const docs = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Every .ts file under these folders. */
function sources(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name).slice(root.length)),
  );
}

const citation = /\b(spec|contract)(?: section)? (\d+(?:\.\d+)?)\b/g;

describe('docs that point at what the repository holds', () => {
  it('resolves every spec/contract citation of the README, the docs and the code to a heading of docs/api.md', () => {
    const headings = new Set(
      [...read('docs/api.md').matchAll(/^#{2,3} (spec|contract) (\d+(?:\.\d+)?) · /gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    const unresolved: string[] = [];
    for (const file of [...docs, ...sources('shared', 'functions', 'infra')]) {
      for (const m of read(file).matchAll(citation)) {
        const key = `${m[1]} ${m[2]}`;
        if (!headings.has(key)) unresolved.push(`${file}: ${m[0]}`);
      }
    }
    expect(unresolved).toEqual([]);
    expect(headings.size).toBeGreaterThan(20);
  });

  it('names only stages that exist', () => {
    const named: string[] = [];
    for (const file of docs) {
      const text = read(file);
      for (const m of text.matchAll(/-c stage=([a-z][a-z0-9-]*)/g)) named.push(`${file}: ${m[1]}`);
      for (const m of text.matchAll(/<br\/>stage ([a-z][a-z0-9-]*):/g)) named.push(`${file}: ${m[1]}`);
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !stageNames().includes(n.split(': ')[1] as string))).toEqual([]);
  });

  it('draws the routes box of the architecture diagrams as the route table generates it, and every index', () => {
    for (const file of routeDocFiles) {
      const text = read(file);
      expect(drawnRoutesBox(text), file).toBeDefined();
      expect(text === withRoutesBox(text), `${file} draws the routes as the route table did once: run \`npm run route-docs\``).toBe(true);
      const indexes = text.match(/single table \+ ([^"\]]*)/)?.[1] ?? '';
      for (const gsi of table.globalSecondaryIndexes) expect(indexes, file).toContain(gsi.indexName);
    }
    // The generated box holds every route id once.
    const drawn = [...(drawnRoutesBox(withRoutesBox(read('README.md'))) as string).matchAll(/[a-z][a-z0-9-]+(?=,|"|<| \()/g)].map(
      (m) => m[0],
    );
    expect(drawn.filter((d) => routes.some((r) => r.id === d)).sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it("names only routes the table has, with their methods, in the docs' route tables and the README's endpoint headings", () => {
    const ids = new Set(routes.map((r) => r.id));
    const wrong: string[] = [];
    const checkRoutes = (file: string, text: string) => {
      for (const m of text.matchAll(/`((?:(?:GET|POST|PUT|DELETE)`?,? `?)+)(\/v2\/[^`\s?[]*)/g)) {
        for (const method of (m[1] as string).split(/[`, ]+/).filter(Boolean))
          if (matchRoute(method, m[2] as string).kind !== 'route') wrong.push(`${file}: ${method} ${m[2]}`);
      }
    };
    let rows = 0;
    for (const file of docs) {
      const text = read(file);
      for (const line of text.split('\n')) {
        if (/^\| `(GET|POST|PUT|DELETE)[ `]/.test(line)) {
          rows++;
          checkRoutes(file, line.split('|')[1] as string);
          for (const m of (line.split('|')[2] ?? '').matchAll(/`([a-z0-9-]+)`/g))
            if (!ids.has(m[1] as string)) wrong.push(`${file}: id ${m[1]}`);
        }
        if (/^###? .*: `(GET|POST|PUT|DELETE) /.test(line)) {
          rows++;
          checkRoutes(file, line);
        }
      }
    }
    expect(rows).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });

  it("lists every error type the API answers, with each of its statuses, in the README's error table", () => {
    const readme = read('README.md');
    const section = readme.slice(
      readme.indexOf('## Conventions and errors'),
      readme.indexOf('\n## ', readme.indexOf('## Conventions and errors') + 5),
    );
    const listed = new Set(
      [...section.matchAll(/^\| (\d{3}) +\| ([^|]+)\|/gm)].flatMap((m) =>
        [...(m[2] as string).matchAll(/`([A-Za-z]+)`/g)].map((t) => `${m[1]} ${t[1]}`),
      ),
    );
    // Every type the code throws (shared/errors.ts) and every error body the API documents, with each status.
    const thrown = [...read('shared/errors.ts').matchAll(/super\('([A-Za-z]+)', (\d{3})\b/g)].map((m) => `${m[2]} ${m[1]}`);
    const documented = Object.entries(errorBodies).flatMap(([type, { statuses }]) => statuses.map((status) => `${status} ${type}`));
    expect(thrown.length).toBeGreaterThan(10);
    expect([...new Set([...thrown, ...documented])].filter((entry) => !listed.has(entry)).sort()).toEqual([]);
  });

  it('cites no file the repository lacks: every `*.md` a doc names is one of its files', () => {
    const files = new Set(
      ['.', 'docs', 'test', 'infra', 'shared', 'functions', 'bench', 'stages'].flatMap((dir) =>
        readdirSync(join(root, dir), { recursive: dir !== '.', withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith('.md'))
          .map((e) => e.name),
      ),
    );
    const missing = docs.flatMap((file) =>
      [...read(file).matchAll(/`([A-Za-z0-9_.-]+\.md)`/g)]
        .map((m) => m[1] as string)
        .filter((name) => !files.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('resolves every link to a doc and its heading, and keeps the ACME how-to in docs/certificates.md', () => {
    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    const anchorsOf = (file: string) => new Set([...read(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug((m[1] as string).trim())));
    const broken: string[] = [];
    let links = 0;
    for (const file of docs) {
      for (const m of read(file).matchAll(/\]\(((?:\.\.\/|docs\/)?[A-Za-z0-9_./-]*\.md)?#([a-z0-9_-]+)\)/g)) {
        links++;
        const target = m[1] ? join(file, '..', m[1]).replace(/^\.\//, '') : file;
        if (!anchorsOf(target).has(m[2] as string)) broken.push(`${file}: ${m[1] ?? ''}#${m[2]}`);
      }
    }
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
    const certificates = read('docs/certificates.md');
    expect(certificates).toContain('npx tsx infra/local/pebble-cli.ts');
    expect(certificates).toContain('CERTIFICATE_AUTHORITY=acme');
  });

  it("lists every domain of the demo data's sandbox registry in the transfer tables of the README and docs/transfer.md", () => {
    const demo = JSON.parse(read('infra/demo-data.json')) as { registryDomains: { domainName: string }[] };
    for (const file of ['README.md', 'docs/transfer.md']) {
      const rows = new Set([...read(file).matchAll(/^\| `([a-z0-9.-]+)` +\|/gm)].map((m) => m[1]));
      const missing = demo.registryDomains.map((d) => d.domainName).filter((name) => name.startsWith('transfer-') && !rows.has(name));
      expect(missing, file).toEqual([]);
    }
  });

  it('lists exactly the admin commands the CLI has, in the README and in docs/ecosystem.md', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'infra/admin.ts', '--help'], { cwd: root, env: process.env });
    const commands = [...stdout.matchAll(/^ {2}([a-z][a-z-]+)(?: |$)/gm)].map((m) => m[1] as string).sort();
    expect(commands).toContain('validate');
    for (const [file, heading] of [
      ['README.md', '## Operator tooling: the admin CLI'],
      ['docs/ecosystem.md', '## Admin CLI'],
    ] as const) {
      const text = read(file);
      const section = text.slice(text.indexOf(heading), text.indexOf('\n## ', text.indexOf(heading) + heading.length));
      const listed = [...section.matchAll(/^\| `([a-z][a-z-]+)[ `]/gm)].map((m) => m[1] as string);
      const inline = [...section.matchAll(/\| `[^`]*` \/ `([a-z][a-z-]+) /gm)].map((m) => m[1] as string);
      expect([...new Set([...listed, ...inline])].sort(), file).toEqual(commands);
    }
    // Every `npm run admin -- X` anywhere in the docs names a command.
    const used = docs.flatMap((file) => [...read(file).matchAll(/npm run admin -- ([a-z][a-z-]+)/g)].map((m) => `${file}: ${m[1]}`));
    expect(used.filter((u) => !commands.includes(u.split(': ')[1] as string))).toEqual([]);
  });
});
