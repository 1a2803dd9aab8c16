import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../functions/exchange-rates/handler.ts';
import { getLatestRates, listRates } from '../shared/db/repositories/rates.ts';
import { defaultEcbRatesUrl, fetchEcbDaily, parseEcbDaily, RatesDocumentError } from '../shared/pricing/ecb.ts';
import { ecbRatesUrl, updateExchangeRates } from '../shared/pricing/update-exchange-rates.ts';
import { jobs } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { captureLogs } from './support/logs.ts';

// This file logs at INFO (the others run silent), set before any module creates the logger.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const sample = readFileSync(new URL('./fixtures/ecb/eurofxref-daily-2026-11-20.xml', import.meta.url), 'utf8');

/** The sample with its rate lines replaced, for broken documents. */
function withRates(lines: string, time = '2026-11-20'): string {
  return sample.replace(/\t\t<Cube time='[^']*'>[\s\S]*?\t\t<\/Cube>\n/, `\t\t<Cube time='${time}'>\n${lines}\n\t\t</Cube>\n`);
}

/** What the local stand-in for the ECB answers, per path. */
const documents: Record<string, { status: number; body: string; delayMs?: number; headers?: Record<string, string> }> = {
  '/eurofxref-daily.xml': { status: 200, body: sample },
  '/server-error.xml': { status: 500, body: '<html>Internal Server Error</html>' },
  '/not-found.xml': { status: 404, body: 'Not Found' },
  '/html.xml': { status: 200, body: '<!DOCTYPE html><html><body>Maintenance</body></html>' },
  '/truncated.xml': { status: 200, body: sample.slice(0, sample.indexOf("<Cube currency='GBP'") + 10) },
  '/empty.xml': { status: 200, body: '' },
  '/no-usd.xml': {
    status: 200,
    body: withRates("\t\t\t<Cube currency='JPY' rate='179.87'/>\n\t\t\t<Cube currency='GBP' rate='0.87830'/>"),
  },
  '/zero-rate.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='GBP' rate='0'/>") },
  '/negative-rate.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='-1.1498'/>") },
  '/text-rate.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='n/a'/>") },
  '/missing-rate.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='GBP'/>") },
  '/bad-currency.xml': {
    status: 200,
    body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='pound' rate='0.8'/>"),
  },
  '/duplicate.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='USD' rate='1.2'/>") },
  '/bad-date.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>", '2026-02-30') },
  '/future-date.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>", '2099-01-02') },
  '/no-day.xml': { status: 200, body: sample.replace(/\t\t<Cube time='[^']*'>[\s\S]*?\t\t<\/Cube>\n/, '') },
  '/two-days.xml': { status: 200, body: sample.replace(/(\t\t<Cube time='[^']*'>[\s\S]*?\t\t<\/Cube>\n)/, '$1$1') },
  '/slow.xml': { status: 200, body: sample, delayMs: 2_000 },
  // A redirect, to the good document on the same server (never followed: it could lead anywhere).
  '/redirect.xml': { status: 302, body: '', headers: { Location: '/eurofxref-daily.xml' } },
  // Rates a broken or forged feed could send: USD ten times what it was the day before (1.1523).
  '/implausible-usd.xml': { status: 200, body: withRates("\t\t\t<Cube currency='USD' rate='11.498'/>") },
  '/implausible-jpy.xml': {
    status: 200,
    body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='JPY' rate='17.987'/>"),
  },
  '/huge-rate.xml': {
    status: 200,
    body: withRates("\t\t\t<Cube currency='USD' rate='1.1498'/>\n\t\t\t<Cube currency='IDR' rate='19247360'/>"),
  },
};

/** Bytes the server managed to send of the endless document before the client gave up. */
let endlessSent = 0;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/endless.xml') {
      // A well-formed start and then whitespace for ever, written as fast as the client reads.
      endlessSent = 0;
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      const chunk = Buffer.alloc(16 * 1024, ' ');
      const pump = () => {
        while (!res.destroyed && endlessSent < 1024 * 1024 * 1024) {
          endlessSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.write(sample.slice(0, 200));
      pump();
      return;
    }
    const doc = documents[req.url ?? ''];
    const send = () => {
      if (res.destroyed) return;
      if (!doc) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(doc.status, { 'Content-Type': 'text/xml', ...doc.headers }).end(doc.body);
    };
    if (doc?.delayMs) setTimeout(send, doc.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  delete process.env.ECB_RATES_URL;
});

const event = { 'detail-type': 'Scheduled Event', source: 'aws.events' } as ScheduledEvent;
const context = { functionName: 'exchange-rates', awsRequestId: 'test' } as Context;

const expectedRates = {
  USD: 1.1498,
  JPY: 179.87,
  CZK: 24.312,
  DKK: 7.4612,
  GBP: 0.8783,
  HUF: 386.45,
  PLN: 4.2265,
  RON: 5.0876,
  SEK: 10.9915,
  CHF: 0.9231,
  ISK: 146.9,
  NOK: 11.721,
  TRY: 48.6123,
  AUD: 1.7764,
  BRL: 6.1702,
  CAD: 1.6148,
  CNY: 8.1794,
  HKD: 8.9462,
  IDR: 19247.36,
  ILS: 3.7531,
  INR: 101.8415,
  KRW: 1689.52,
  MXN: 21.2438,
  MYR: 4.8012,
  NZD: 2.0317,
  PHP: 67.834,
  SGD: 1.4987,
  THB: 37.326,
  ZAR: 20.0215,
};

describe('parsing the ECB daily XML', () => {
  it('reads the date and every rate of the recorded sample', () => {
    expect(parseEcbDaily(sample, new Date('2026-11-21T12:00:00Z'))).toEqual({ date: '2026-11-20', rates: expectedRates });
  });

  it.each([
    ['/html.xml', /Not an ECB daily rates document: Envelope/],
    ['/truncated.xml', /Not well-formed XML/],
    ['/no-usd.xml', /lacks the USD rate/],
    ['/zero-rate.xml', /rate must be above zero/],
    ['/negative-rate.xml', /rate must be a positive decimal number/],
    ['/text-rate.xml', /rate must be a positive decimal number/],
    ['/missing-rate.xml', /Envelope\.Cube\.0\.Cube\.0\.Cube\.1\.rate/],
    ['/bad-currency.xml', /currency must be a three-letter ISO 4217 code/],
    ['/duplicate.xml', /lists USD twice/],
    ['/bad-date.xml', /time is not a calendar date/],
    ['/two-days.xml', /expected exactly one day of rates/],
    ['/future-date.xml', /dated 2099-01-02, in the future/],
    ['/no-day.xml', /Not an ECB daily rates document: Envelope\.Cube\.0/],
  ])('refuses %s as a whole', (path, message) => {
    const doc = documents[path] as { body: string };
    expect(() => parseEcbDaily(doc.body, new Date('2026-11-21T12:00:00Z'))).toThrow(RatesDocumentError);
    expect(() => parseEcbDaily(doc.body, new Date('2026-11-21T12:00:00Z'))).toThrow(message);
  });

  it('refuses an empty document', () => {
    expect(() => parseEcbDaily('')).toThrow(RatesDocumentError);
    expect(() => parseEcbDaily('')).toThrow(/Not well-formed XML/);
  });

  /** The sample with a DOCTYPE declaring `declarations` before its root element. */
  function withDoctype(xml: string, declarations: string): string {
    return xml.replace('<gesmes:Envelope', `<!DOCTYPE gesmes:Envelope [${declarations}]>\n<gesmes:Envelope`);
  }
  const usdOnly = (rate: string) => withRates(`\t\t\t<Cube currency='USD' rate='${rate}'/>`);
  const saturday = new Date('2026-11-21T12:00:00Z');

  it.each([
    ['a second root element', `${sample}<Cube currency='USD' rate='2'/>\n`, /Extra content at the end of the document/],
    [
      'a document cut before its last end tag',
      sample.slice(0, sample.lastIndexOf('</gesmes:Envelope>')),
      /Missing end tag for element gesmes:Envelope/,
    ],
    ['a mismatched end tag', sample.replace('</gesmes:Sender>', '</gesmes:Sendr>'), /Missing end tag for element gesmes:Sender/],
    ['a repeated attribute', withRates("\t\t\t<Cube currency='USD' rate='1.1498' rate='2'/>"), /Duplicate attribute: rate/],
    ['an unquoted attribute value', withRates("\t\t\t<Cube currency='USD' rate=1.1498/>"), /Attribute value expected/],
    ['a stray ampersand', sample.replace('Reference rates', 'Rates & more'), /Unterminated reference/],
  ])('refuses %s as not well-formed', (_what, xml, reason) => {
    expect(() => parseEcbDaily(xml, saturday)).toThrow(RatesDocumentError);
    expect(() => parseEcbDaily(xml, saturday)).toThrow(/^Not well-formed XML: /);
    expect(() => parseEcbDaily(xml, saturday)).toThrow(reason);
  });

  it('does not expand an entity declared in a DOCTYPE: a document using one is refused', () => {
    // Expanded, `&r;` would be a valid USD rate and the document accepted.
    const xml = withDoctype(usdOnly('&r;'), "<!ENTITY r '1.1498'>");
    expect(() => parseEcbDaily(xml, saturday)).toThrow(RatesDocumentError);
    expect(() => parseEcbDaily(xml, saturday)).toThrow(/Not well-formed XML: Named entity isn't defined: &r;/);
  });

  it('never reads an external entity', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ecb-entity-'));
    try {
      const file = join(dir, 'rate.txt');
      writeFileSync(file, '1.1498');
      const xml = withDoctype(usdOnly('&x;'), `<!ENTITY x SYSTEM '${pathToFileURL(file).href}'>`);
      expect(() => parseEcbDaily(xml, saturday)).toThrow(RatesDocumentError);
      expect(() => parseEcbDaily(xml, saturday)).toThrow(/Named entity isn't defined: &x;/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an entity-expansion bomb at once, without expanding it', () => {
    const levels = ["<!ENTITY l0 'lol'>"];
    for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY l${i} '${`&l${i - 1};`.repeat(10)}'>`);
    const xml = withDoctype(sample, levels.join('')).replace('Reference rates', '&l9;');
    const started = performance.now();
    expect(() => parseEcbDaily(xml, saturday)).toThrow(/Not well-formed XML: Named entity isn't defined: &l9;/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a document nested too deeply to read', () => {
    const depth = 100_000;
    const xml = withRates(`\t\t\t<Cube currency='USD' rate='1.1498'>${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}</Cube>`);
    expect(xml.length).toBeLessThan(1_000_000);
    expect(() => parseEcbDaily(xml, saturday)).toThrow(RatesDocumentError);
    expect(() => parseEcbDaily(xml, saturday)).toThrow('The XML is nested too deeply to read');
  });

  it('reads a character reference as its character, as XML requires', () => {
    expect(parseEcbDaily(usdOnly('1&#46;1498'), saturday)).toEqual({ date: '2026-11-20', rates: { USD: 1.1498 } });
    expect(() => parseEcbDaily(usdOnly('1.1498&amp;'), saturday)).toThrow(/rate must be a positive decimal number/);
  });

  it('refuses an entry whose child element has the name of one of its attributes', () => {
    const xml = withRates("\t\t\t<Cube currency='USD' rate='1.1498'><rate>2</rate></Cube>");
    expect(() => parseEcbDaily(xml, saturday)).toThrow(/Envelope\.Cube\.0\.Cube\.0\.Cube\.0\.rate: Invalid type/);
  });

  it('reads elements and attributes named __proto__ as plain data', () => {
    const xml = withRates("\t\t\t<Cube currency='USD' rate='1.1498' __proto__='x'><__proto__ currency='GBP'/></Cube>");
    expect(parseEcbDaily(xml, saturday)).toEqual({ date: '2026-11-20', rates: { USD: 1.1498 } });
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('currency');
  });
});

describe('the exchange-rate job', () => {
  it('is a scheduled job of the route table, daily, reading and putting exchange rates and its run record only', () => {
    // It reads and puts exchange rates; its one other item is the record of its run (JOBRUN#, for GET /v2/health).
    expect(jobs.find((j) => j.id === 'exchange-rates')).toEqual({
      id: 'exchange-rates',
      dir: 'exchange-rates',
      table: { actions: ['Query', 'PutItem'], only: ['rates', 'jobRun'] },
      schedule: 'cron(30 16 * * ? *)',
      localIntervalSeconds: 3600,
      summary: "Fetches the ECB's daily euro reference rates and stores them under their date (idempotent).",
      environment: { ECB_RATES_URL: defaultEcbRatesUrl },
    });
  });

  it('reads its URL from ECB_RATES_URL, the ECB public URL by default', () => {
    expect(ecbRatesUrl()).toBe('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml');
    process.env.ECB_RATES_URL = `${base}/eurofxref-daily.xml`;
    expect(ecbRatesUrl()).toBe(`${base}/eurofxref-daily.xml`);
  });

  it('keeps the last good rates, logs an error and fails on every broken fetch', async () => {
    const before = await listRates();
    for (const path of Object.keys(documents).filter((p) => p !== '/eurofxref-daily.xml' && p !== '/slow.xml')) {
      process.env.ECB_RATES_URL = `${base}${path}`;
      let failure: unknown;
      const logs = await captureLogs(async () => {
        failure = await handler(event, context).then(
          () => undefined,
          (error: unknown) => error,
        );
      });
      expect(failure, path).toBeInstanceOf(Error);
      const line = logs.find((l) => l.message === 'exchange-rate update failed; the last stored rates stay in force');
      expect(line, path).toMatchObject({ level: 'ERROR', error: { message: (failure as Error).message } });
    }
    expect(await listRates()).toEqual(before);
  });

  it('fails when the rates server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    process.env.ECB_RATES_URL = `http://127.0.0.1:${port}/eurofxref-daily.xml`;
    await expect(captureLogs(() => handler(event, context))).rejects.toThrow('fetch failed');
  });

  it('does not follow a redirect, even to a good document', async () => {
    await expect(fetchEcbDaily(`${base}/redirect.xml`)).rejects.toThrow('The rates URL answered HTTP 302; redirects are not followed');
  });

  it('stops reading a document past its byte cap instead of reading it all', async () => {
    await expect(fetchEcbDaily(`${base}/endless.xml`)).rejects.toThrow('The rates document is larger than 65536 bytes');
    // Given up within a few socket buffers of the cap, not after the gigabyte the server would send.
    expect(endlessSent).toBeLessThan(8 * 1024 * 1024);
    // A declared Content-Length above the cap is refused before any of the body is read.
    await expect(fetchEcbDaily(`${base}/eurofxref-daily.xml`, 10_000, 1000)).rejects.toThrow(
      'The rates document is larger than 1000 bytes',
    );
  });

  it('refuses rates that moved by more than a factor of 1.5 since the newest stored day, and a rate above a million', async () => {
    process.env.ECB_RATES_URL = `${base}/implausible-usd.xml`;
    await expect(captureLogs(() => handler(event, context))).rejects.toThrow(
      'Implausible rates: USD moved from 1.1523 on 2026-11-19 to 11.498 on 2026-11-20, by more than a factor of 1.5',
    );
    process.env.ECB_RATES_URL = `${base}/implausible-jpy.xml`;
    await expect(captureLogs(() => handler(event, context))).rejects.toThrow(
      /Implausible rates: JPY moved from [\d.]+ on 2026-11-19 to 17.987/,
    );
    process.env.ECB_RATES_URL = `${base}/huge-rate.xml`;
    await expect(captureLogs(() => handler(event, context))).rejects.toThrow('rate must be at most 1000000');
    expect((await listRates()).map((r) => r.date)).toEqual(['2026-11-18', '2026-11-19']);
  });

  it('gives up on a rates server that does not answer in time', async () => {
    await expect(fetchEcbDaily(`${base}/slow.xml`, 200)).rejects.toThrow(/aborted|timeout/i);
  });

  it('stores the rates of the recorded sample with their date, and the price list converts at them', async () => {
    const before = await call('GET', '/v2/customers/demo/pricelist?currency=USD');
    expect(before.headers['x-exchange-rate-date']).toBe('2026-11-19');

    process.env.ECB_RATES_URL = `${base}/eurofxref-daily.xml`;
    let result: unknown;
    const logs = await captureLogs(async () => {
      result = await handler(event, context);
    });
    expect(result).toEqual({ date: '2026-11-20', currencies: 29, stored: true });
    expect(logs.find((l) => l.message === 'exchange rates updated')).toMatchObject({ level: 'INFO', date: '2026-11-20', stored: true });

    const latest = await getLatestRates();
    expect(latest).toEqual({
      base: 'EUR',
      date: '2026-11-20',
      rates: expectedRates,
      source: `${base}/eurofxref-daily.xml`,
      fetchedDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });

    const after = await call('GET', '/v2/customers/demo/pricelist?currency=USD');
    expect(after.headers['x-exchange-rate-date']).toBe('2026-11-20');
    // domain_com CREATE: 1049 EUR cents x 1.1498 = 1206.1402 -> 1206 USD cents
    expect(after.body.prices.find((p: { product: string; action: string }) => p.product === 'domain_com' && p.action === 'CREATE')).toEqual(
      {
        product: 'domain_com',
        action: 'CREATE',
        currency: 'USD',
        price: 1206,
        fromDate: '2025-09-01T00:00:00Z',
      },
    );
  });

  it('changes nothing when run again for the same day', async () => {
    process.env.ECB_RATES_URL = `${base}/eurofxref-daily.xml`;
    const before = await listRates();
    expect(before.map((r) => r.date)).toEqual(['2026-11-18', '2026-11-19', '2026-11-20']);
    expect(await updateExchangeRates()).toEqual({ date: '2026-11-20', currencies: 29, stored: false });
    expect(await updateExchangeRates()).toEqual({ date: '2026-11-20', currencies: 29, stored: false });
    expect(await listRates()).toEqual(before);
  });
});
