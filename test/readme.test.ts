import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDataset, readDatasetFile } from '../infra/dataset.ts';
import { billableActions } from '../shared/pricing/quote.ts';
import { call } from './support/api.ts';

/**
 * The README says what `npm start` does and what the demo data holds: derived here from
 * infra/demo-data.json itself, so the next change of the data that the README does not follow
 * fails the suite instead of drifting.
 */

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const demoDataFile = new URL('../infra/demo-data.json', import.meta.url).pathname;
const demo = JSON.parse(readFileSync(demoDataFile, 'utf8')) as {
  customers: { handle: string; currency: string }[];
  prices: { customer: string; product: string; action: string }[];
  rates: { date: string; rates: Record<string, number> }[];
  certificates: { id: number; customer: string }[];
  processes: { id: number; customer: string }[];
  registryDomains: { domainName: string; registration?: string }[];
};

/** The text of the demo-data table's row `what`, its second cell. */
function row(what: string): string {
  const line = readme.split('\n').find((l) => l.startsWith(`| ${what} `));
  if (!line) throw new Error(`The README's demo data table has no row '${what}'`);
  return (line.split('|')[2] ?? '').trim();
}

/** The products of a customer's prices with their actions, in the order the data lists them. */
function actionsByProduct(customer: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of demo.prices.filter((price) => price.customer === customer)) {
    const actions = out.get(p.product) ?? [];
    if (!actions.includes(p.action)) actions.push(p.action);
    out.set(p.product, actions);
  }
  return out;
}

/**
 * Products with the same actions grouped, in one order whatever the data's: products by name,
 * actions in the order of spec 2.5, groups by their first product ("`a`, `b` CREATE/RENEW; `c` REQUEST").
 */
function priceSummary(byProduct: Map<string, string[]>): string {
  const groups = new Map<string, string[]>();
  for (const [product, actions] of [...byProduct].sort(([a], [b]) => a.localeCompare(b))) {
    const key = [...actions].sort((a, b) => billableActions.indexOf(a as never) - billableActions.indexOf(b as never)).join('/');
    groups.set(key, [...(groups.get(key) ?? []), product]);
  }
  return [...groups].map(([actions, products]) => `${products.map((p) => `\`${p}\``).join(', ')} ${actions}`).join('; ');
}

const numbers = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('the README agrees with the demo data and with what npm start does', () => {
  it('shows the ready line with the number of items a start on an empty table writes', async () => {
    // The test's table holds the demo data already: loading it again keeps every item it would write.
    const report = await loadDataset(await readDatasetFile(demoDataFile));
    const items = Object.values(report).reduce((n, section) => n + section.written + section.kept, 0);
    expect(items).toBeGreaterThan(100);
    const ready = readme.split('\n').find((l) => l.startsWith('Registrar API sandbox ready on '));
    expect(ready).toMatch(new RegExp(`; demo data: ${items} items written, 0 already present\\)\\. Try: `));
  });

  it('lists the products and actions the price lists really have, the same for every customer', () => {
    const [first, ...others] = demo.customers.map((c) => actionsByProduct(c.handle));
    for (const other of others) expect(priceSummary(other as Map<string, string[]>)).toBe(priceSummary(first as Map<string, string[]>));
    const summary = priceSummary(first as Map<string, string[]>);
    expect(row('prices'), `the prices row should say: ${summary}`).toContain(summary);
    const currencies = demo.customers.map((c) => `\`${c.handle}\` (${c.currency})`).join(' and ');
    expect(row('prices')).toContain(currencies);
  });

  it('names the exchange rate dates and currencies, the certificates and the processes the data holds', () => {
    const dates = demo.rates.map((r) => r.date);
    expect(row('exchange rates')).toContain(`rates of ${dates.slice(0, -1).join(', ')} and ${dates.at(-1)}`);
    for (const currency of new Set(demo.rates.flatMap((r) => Object.keys(r.rates)))) expect(row('exchange rates')).toContain(currency);
    const idsIn = (text: string) => [...text.matchAll(/`(\d{3,4})`/g)].map((m) => Number(m[1])).sort();
    expect(idsIn(row('certificates'))).toEqual(demo.certificates.map((c) => c.id).sort());
    expect(idsIn(row('processes'))).toEqual(demo.processes.map((p) => p.id).sort());
  });

  it('counts the transfer candidates of the sandbox registry, and its table lists every one', () => {
    const text = row('transfer candidates');
    const named = [...text.matchAll(/`([a-z0-9.-]+)`/g)].map((m) => m[1] as string);
    const more = numbers.indexOf(/ and (\w+) more/.exec(text)?.[1] ?? '');
    // The names the registry does not hold (a check's reserved and premium names) are no transfer candidates.
    const all = demo.registryDomains.filter((d) => d.registration === undefined).map((d) => d.domainName);
    for (const name of named) expect(all).toContain(name);
    expect(named.length + more).toBe(all.length);
    const table = readme.split('\n').filter((l) => /^\| `transfer-[a-z.-]+` +\|/.test(l));
    expect(table.map((l) => /`([^`]+)`/.exec(l)?.[1]).sort()).toEqual([...all].sort());
  });
});

/**
 * The README's curl examples of its endpoints and notifications, run in order as a reader would
 * (through the local gateway, on this file's table with the demo data), each `# ...` answer it shows
 * held against the real one: its status where it names one, and every `"field":value` it quotes.
 * Commands that need a file or a program beside curl (a CSR made by openssl) are left out.
 */
describe("the README's examples, run in order", () => {
  /** The shell commands of the README's sh blocks between two headings, continuation lines joined, with their comments. */
  function commands(from: string, to: string): { command: string; shown: string[] }[] {
    const part = readme.slice(readme.indexOf(from), readme.indexOf(to));
    const blocks = [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    const out: { command: string; shown: string[] }[] = [];
    for (const block of blocks) {
      for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
        if (line.startsWith('# ')) out.at(-1)?.shown.push(line.slice(2));
        else if (/curl /.test(line)) out.push({ command: line, shown: [] });
      }
    }
    return out;
  }

  /** A curl command line as a request: method, URL path, headers, body; undefined for what needs more than curl. */
  function parse(command: string, vars: Record<string, string>) {
    if (/\$\((?!curl)/.test(command) || /\| head/.test(command)) return undefined;
    const line = command.replace(/\$(\w+)/g, (_m, name: string) => vars[name] ?? `$${name}`);
    const method = /-X (\w+)/.exec(line)?.[1] ?? (/ -d '/.test(line) ? 'POST' : 'GET');
    const headers = Object.fromEntries([...line.matchAll(/-H '([^:']+): ([^']*)'/g)].map((m) => [m[1] as string, (m[2] as string).trim()]));
    const body = /-d '([^']*)'/.exec(line)?.[1];
    const url = /'?http:\/\/127\.0\.0\.1:3000(\/[^'\s]*)'?/.exec(line)?.[1] as string;
    const assigns = /^(\w+)=\$\(curl/.exec(line)?.[1];
    return { method, url, headers, body, assigns };
  }

  it('answers every example as the README shows it (the notification samples included)', async () => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
    // The DNS provider `npm start` runs by default (a local PowerDNS), as the health example reports it.
    process.env.DNS_PROVIDER ??= 'powerdns';
    try {
      const vars: Record<string, string> = {};
      let checked = 0;
      let run = 0;
      for (const { command, shown } of commands('## Endpoints', '## Using the official clients')) {
        const request = parse(command, vars);
        if (!request) continue;
        const { Authorization, ...headers } = request.headers;
        const key = Authorization ? Authorization.replace(/^ApiKey /, '') : null;
        const res = await call(request.method, request.url, {
          key,
          headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
        });
        run++;
        if (request.assigns) vars[request.assigns] = res.headers['x-process-id'] as string;
        // An example shows a success unless its comment names another status.
        if (!shown.some((text) => /^\d{3} /.test(text))) expect(res.status, `${command}\n${res.raw}`).toBeLessThan(400);
        for (const text of shown) {
          const status = /^(\d{3}) /.exec(text)?.[1];
          if (status) expect(res.status, `${command}\n${text}`).toBe(Number(status));
          // Every "field":value it quotes whole (a value cut with ... is left out).
          for (const m of text.matchAll(/"([A-Za-z]+)":("[^"]*"|-?\d+(?:\.\d+)?|true|false|null)(?=[,}])/g)) {
            if ((m[2] as string).includes('...')) continue;
            expect(res.raw, `${command}\n${text}`).toContain(`"${m[1]}":${m[2]}`);
            checked++;
          }
        }
      }
      expect(run).toBeGreaterThan(15);
      expect(checked).toBeGreaterThan(5);
    } finally {
      delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
      delete process.env.DNS_PROVIDER;
    }
  });
});
