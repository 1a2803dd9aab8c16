import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DebianPackagesUnavailable, ensureDebianPackages } from '../infra/local/debian-packages.ts';

// Debian packages fetched without root (infra/local/debian-packages.ts), into a cache of the test's
// own: from Debian's package registry, as on a fresh machine.

const cache = mkdtempSync(join(tmpdir(), 'debian-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe('ensureDebianPackages', () => {
  it('fetches and extracts a package once, for two callers at once, and reuses the root afterwards', async () => {
    const [a, b] = await Promise.all([
      ensureDebianPackages(['libjemalloc2'], { cacheDir: cache }),
      ensureDebianPackages(['libjemalloc2'], { cacheDir: cache }),
    ]);
    expect(b).toEqual(a);
    expect(existsSync(join(a.root, 'usr/lib/x86_64-linux-gnu/libjemalloc.so.2'))).toBe(true);
    expect(a.libraryPath.split(':')).toContain(join(a.root, 'usr/lib/x86_64-linux-gnu'));
    // No half-built copy is left beside the root, and one .deb was kept.
    expect(readdirSync(join(cache, 'roots'))).toHaveLength(1);
    expect(readdirSync(join(cache, 'debs')).filter((f) => f.startsWith('libjemalloc2_'))).toHaveLength(1);
    expect(await ensureDebianPackages(['libjemalloc2'], { cacheDir: cache })).toEqual(a);
  }, 60_000);

  it('says which package cannot be had', async () => {
    const failed = ensureDebianPackages(['no-such-package-for-the-test'], { cacheDir: cache });
    await expect(failed).rejects.toBeInstanceOf(DebianPackagesUnavailable);
    await expect(failed).rejects.toThrow(/no-such-package-for-the-test/);
    await expect(ensureDebianPackages(['Not A Name'], { cacheDir: cache })).rejects.toThrow('not a Debian package name');
  }, 60_000);
});
