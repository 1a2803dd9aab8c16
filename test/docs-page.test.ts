import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, startServer } from '../infra/local/server.ts';
import { methodsOf, routes } from '../shared/routes.ts';

/**
 * The /docs page in a real headless browser: the Chromium build shipped inside the npm package
 * @sparticuz/chromium (so `npm ci` is all a machine needs: no apt, no root, no download), driven by
 * playwright-core. Set SCREENSHOT=docs/api-docs.png to also save the screenshot the README shows.
 */

/**
 * Unpacks the package's Chromium once per install into node_modules/.cache (a fresh `npm ci`
 * starts over) and returns the binary's path. The package unpacks into os.tmpdir() under fixed
 * names (/tmp/chromium, /tmp/fonts, ...), shared by every user and every checkout on the machine
 * and half-written while another run unpacks; so it unpacks here into a staging folder of its own
 * (TMPDIR pointed at it), which then takes the cache's name in one rename.
 */
async function bundledChromium(): Promise<string> {
  const packageDir = dirname(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')));
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(packageDir, '..', '..', '.cache');
  const cached = join(cacheRoot, `sparticuz-chromium-${version}`);
  if (existsSync(join(cached, 'chromium'))) return join(cached, 'chromium');
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, 'sparticuz-chromium-staging-'));
  const tmp = process.env.TMPDIR;
  try {
    process.env.TMPDIR = staging;
    if ((await sparticuz.executablePath()) !== join(staging, 'chromium')) throw new Error('@sparticuz/chromium unpacked outside TMPDIR');
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  try {
    renameSync(staging, cached);
  } catch {
    // Another run unpacked it first: use theirs.
    rmSync(staging, { recursive: true, force: true });
  }
  return join(cached, 'chromium');
}

let server: LocalServer;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  const executablePath = await bundledChromium();
  server = await startServer({ port: 0 });
  profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    // No sandbox (it needs privileges a plain user may lack); everything that would reach the
    // network on its own is off: the machine's network is closed and the page must load from the
    // local server alone (the test checks that no other URL is requested).
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--no-pings',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-domain-reliability',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 1000 },
  });
});

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

// A browser page under a loaded machine: each step waits up to 10 to 15 s for the page, so a test
// gets the sum of its waits rather than the default 20 s.
const pageTimeout = 90_000;

describe('GET /docs', () => {
  it('lists the operations of the route table and runs a "try it" call that answers 200, with everything served locally', {
    timeout: pageTimeout,
  }, async () => {
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => {
      requested.push(request.url());
    });
    await page.goto(`${server.url}/docs`);
    // HEAD operations stay in the document (test/openapi.test.ts) but not on the page.
    const operations = routes.flatMap((r) =>
      methodsOf(r)
        .filter((m) => m !== 'HEAD')
        .map((m) => `${m} ${r.path}`),
    );
    await page
      .locator('.opblock')
      .nth(operations.length - 1)
      .waitFor({ timeout: 15_000 });

    const listed = await page
      .locator('.opblock-summary')
      .evaluateAll((nodes) =>
        nodes.map(
          (n) =>
            `${n.querySelector('.opblock-summary-method')?.textContent} ${n.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect(listed.sort()).toEqual(operations.sort());
    for (const path of [
      '/v2/domains/{domainName}/transfer',
      '/v2/ssl/certificates/{certificateId}/renew',
      '/v2/processes/{processId}/info',
      '/v2/providers/REGISTRY/{name}/info',
      '/v2/customers/{customer}/pricelist',
      '/v2/domains/{domainName}/zone',
    ]) {
      expect(
        listed.some((l) => l.endsWith(` ${path}`)),
        path,
      ).toBe(true);
    }

    const screenshot = process.env.SCREENSHOT;
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1160 } });

    // Try it out: provider info of sidn (the example value), with the pre-authorised demo key.
    const op = page.locator('.opblock-get', { has: page.locator('[data-path="/v2/providers/REGISTRY/{name}/info"]') });
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    const name = op.locator('tr[data-param-name="name"] input');
    if ((await name.inputValue()) === '') await name.fill('sidn');
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 10_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    await expect.poll(() => op.locator('.live-responses-table .microlight').first().textContent()).toContain('"possibleDomainExtensions"');

    expect(requested.filter((url) => !url.startsWith(server.url) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${server.url}/v2/providers/REGISTRY/sidn/info`);
    await page.close();
  });

  it('sends a fresh Idempotency-Key with each "Try it out" request that changes something', { timeout: pageTimeout }, async () => {
    const page = await context.newPage();
    const keys: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/resend')) keys.push(request.headers()['idempotency-key'] ?? '');
    });
    await page.goto(`${server.url}/docs`);
    const op = page.locator('.opblock-post', { has: page.locator('[data-path="/v2/processes/{processId}/resend"]') });
    await op.waitFor({ timeout: 15_000 });
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    const key = op.locator('tr[data-param-name="Idempotency-Key"] input');
    expect(await key.inputValue()).toBe('');
    await op.locator('tr[data-param-name="processId"] input').fill('501');
    for (let i = 0; i < 2; i++) {
      await op.locator('.execute').click();
      await expect.poll(() => keys.length, { timeout: 10_000 }).toBe(i + 1);
      await op.locator('.live-responses-table .response .response-col_status').first().waitFor({ timeout: 10_000 });
      await op.locator('.btn-clear').click();
    }
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[0]).not.toBe(keys[1]);
    await page.close();
  });

  it('serves the page, its assets from node_modules, and 404 for anything else under /docs', async () => {
    const html = await fetch(`${server.url}/docs`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('/docs/swagger-ui-bundle.js');
    const js = await fetch(`${server.url}/docs/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(100_000);
    expect((await fetch(`${server.url}/docs/../package.json`)).status).not.toBe(200);
    expect((await fetch(`${server.url}/docs/package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs`, { method: 'POST' })).status).toBe(405);
  });
});
