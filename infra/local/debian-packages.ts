import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Debian packages fetched without root: `apt-get download` (which needs no root) into a cache, then
 * `dpkg-deb -x` of every package into one folder, reused on later runs. Engines the sandbox runs
 * beside DynamoDB Local (PowerDNS, Pebble) come from here, so a fresh clone on a Debian machine
 * needs no `apt-get install` and no Docker.
 *
 * Layout under the cache (`node_modules/.cache/debian/` by default):
 * - `debs/`: the downloaded `.deb` files, shared by every set of packages;
 * - `roots/<hash of the names>/`: the extracted packages, complete once it exists (it is built
 *   in a folder of its own and renamed into place, so two processes asking at once both get a
 *   complete root: the second rename loses and its copy is thrown away);
 * - `apt/`: apt's own lists and caches, used only when the machine's lists do not know a package
 *   (a machine where `apt-get update` never ran, or a user who cannot read its lists).
 */

/** What `ensureDebianPackages` gives: the folder the packages were extracted into, and its library path. */
export interface DebianRoot {
  /** The extracted root: a package's `/usr/sbin/x` is `<root>/usr/sbin/x`. */
  root: string;
  /** The root's library folders, `:`-separated, for `LD_LIBRARY_PATH`. */
  libraryPath: string;
}

/** apt-get or dpkg-deb cannot be had, or a package cannot be fetched: the one-line reason. */
export class DebianPackagesUnavailable extends Error {}

export interface DebianPackagesOptions {
  /** The cache folder; `node_modules/.cache/debian` of the project by default (env DEBIAN_PACKAGE_CACHE). */
  cacheDir?: string;
}

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The cache folder the packages are kept in. */
export function debianCacheDir(options: DebianPackagesOptions = {}): string {
  return resolve(options.cacheDir ?? process.env.DEBIAN_PACKAGE_CACHE ?? join(projectRoot, 'node_modules/.cache/debian'));
}

interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a command without a shell; the last 8 kB of its output. A missing command is reported, not thrown. */
function run(command: string, args: string[], cwd: string): Promise<RunResult & { missing?: boolean }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error: NodeJS.ErrnoException) => done({ code: null, output: error.message, missing: error.code === 'ENOENT' }));
    child.on('close', (code) => done({ code, output }));
  });
}

/** The `.deb` already downloaded for a package, if any (`name_version_arch.deb`). */
function cachedDeb(debs: string, name: string): string | undefined {
  return readdirSync(debs).find((file) => file.endsWith('.deb') && file.startsWith(`${name}_`));
}

/** apt's options that keep its lists and caches in the project's cache (usable without root). */
function privateAptOptions(cache: string): string[] {
  const lists = join(cache, 'apt/lists');
  const archives = join(cache, 'apt/archives');
  mkdirSync(join(lists, 'partial'), { recursive: true });
  mkdirSync(join(archives, 'partial'), { recursive: true });
  return [
    '-o',
    `Dir::State::Lists=${lists}`,
    '-o',
    `Dir::Cache=${join(cache, 'apt')}`,
    '-o',
    `Dir::Cache::Archives=${archives}`,
    '-o',
    'Dir::State::Status=/dev/null',
    '-o',
    'Debug::NoLocking=true',
  ];
}

/** Whether apt's answer says it does not know a package (its lists are missing or stale). */
function unknownPackage(output: string): boolean {
  return /Unable to locate package|has no installation candidate|Couldn't find any package|No packages found/.test(output);
}

/** Downloads the packages not yet in `debs/`, through a folder of this process, then renamed into place. */
async function download(cache: string, names: string[]): Promise<void> {
  const debs = join(cache, 'debs');
  mkdirSync(debs, { recursive: true });
  const missing = names.filter((name) => !cachedDeb(debs, name));
  if (missing.length === 0) return;
  const work = join(cache, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(work, { recursive: true });
  try {
    let result = await run('apt-get', ['download', ...missing], work);
    if (result.missing) {
      throw new DebianPackagesUnavailable(
        `apt-get was not found: fetching ${missing.join(', ')} needs a Debian or Ubuntu machine (apt-get download needs no root).`,
      );
    }
    if (result.code !== 0 && unknownPackage(result.output)) {
      // The machine's lists do not know the package: fetch lists of our own, then try again.
      const options = privateAptOptions(cache);
      const update = await run('apt-get', [...options, 'update'], work);
      if (update.code !== 0) {
        throw new DebianPackagesUnavailable(`apt-get update (lists kept in ${join(cache, 'apt')}) failed: ${lastLine(update.output)}`);
      }
      result = await run('apt-get', [...options, 'download', ...missing], work);
    }
    if (result.code !== 0) {
      throw new DebianPackagesUnavailable(`apt-get download ${missing.join(' ')} failed: ${lastLine(result.output)}`);
    }
    for (const file of readdirSync(work)) {
      if (file.endsWith('.deb')) renameSync(join(work, file), join(debs, file));
    }
    const still = names.filter((name) => !cachedDeb(debs, name));
    if (still.length > 0) throw new DebianPackagesUnavailable(`apt-get download did not deliver ${still.join(', ')}.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function lastLine(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return (lines.filter((line) => line.startsWith('E:')).at(-1) ?? lines.at(-1) ?? 'no output').slice(0, 300);
}

/** The library folders of an extracted root (multiarch folders first), `:`-separated. */
function libraryPathOf(root: string): string {
  const folders: string[] = [];
  for (const base of ['usr/lib', 'lib']) {
    const dir = join(root, base);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      if (/^[a-z0-9_]+-linux-gnu[a-z]*$/.test(entry)) folders.push(join(dir, entry));
    }
    folders.push(dir);
  }
  return folders.join(':');
}

/**
 * Makes sure the named Debian packages are downloaded and extracted, and says where. The first call
 * downloads and extracts them (a few seconds); later calls, in this process or another, find the
 * extracted root and return at once. Dependencies are not resolved: name every package whose files
 * are needed (a shared library the machine lacks, say).
 */
export async function ensureDebianPackages(names: string[], options: DebianPackagesOptions = {}): Promise<DebianRoot> {
  if (names.length === 0) throw new Error('ensureDebianPackages: no package named');
  for (const name of names) {
    if (!/^[a-z0-9][a-z0-9+.-]+$/.test(name)) throw new Error(`ensureDebianPackages: not a Debian package name: ${JSON.stringify(name)}`);
  }
  const cache = debianCacheDir(options);
  const sorted = [...new Set(names)].sort();
  const root = join(cache, 'roots', createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 16));
  if (existsSync(root)) return { root, libraryPath: libraryPathOf(root) };

  mkdirSync(join(cache, 'roots'), { recursive: true });
  await download(cache, sorted);
  const building = `${root}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(building, { recursive: true });
  try {
    const debs = join(cache, 'debs');
    for (const name of sorted) {
      const deb = join(debs, cachedDeb(debs, name) as string);
      const result = await run('dpkg-deb', ['-x', deb, building], cache);
      if (result.missing)
        throw new DebianPackagesUnavailable('dpkg-deb was not found: extracting Debian packages needs dpkg (Debian or Ubuntu).');
      if (result.code !== 0) throw new DebianPackagesUnavailable(`dpkg-deb -x ${deb} failed: ${lastLine(result.output)}`);
    }
    writeFileSync(join(building, '.packages'), `${sorted.join('\n')}\n`);
    try {
      renameSync(building, root);
    } catch (error) {
      // Another process renamed its complete copy into place first: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if (!(existsSync(root) && (code === 'ENOTEMPTY' || code === 'EEXIST'))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return { root, libraryPath: libraryPathOf(root) };
}
