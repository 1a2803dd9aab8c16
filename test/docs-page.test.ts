import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, startServer } from '../infra/local/server.ts';
import { routes } from '../shared/routes.ts';

/**
 * The /docs page in a real headless browser (Debian's chromium driven by playwright-core). Set
 * SCREENSHOT=docs/api-docs.png to also save the screenshot the README shows.
 */

const chromiumPath = '/usr/bin/chromium';
let server: LocalServer;
let context: BrowserContext;
let profile: string;

beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install -y chromium (see .ci/run)`);
  server = await startServer({ port: 0 });
  profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
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

describe('GET /docs', () => {
  it('lists the operations of the route table and runs a "try it" call that answers 200, with everything served locally', async () => {
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => {
      requested.push(request.url());
    });
    await page.goto(`${server.url}/docs`);
    await page
      .locator('.opblock')
      .nth(routes.length - 1)
      .waitFor({ timeout: 15_000 });

    const listed = await page
      .locator('.opblock-summary')
      .evaluateAll((nodes) =>
        nodes.map(
          (n) =>
            `${n.querySelector('.opblock-summary-method')?.textContent} ${n.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect(listed.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
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
    const op = page.locator('.opblock', { has: page.locator('[data-path="/v2/providers/REGISTRY/{name}/info"]') });
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
