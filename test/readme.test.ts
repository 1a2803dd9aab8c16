import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDataset, readDatasetFile } from '../infra/dataset.ts';
import { billableActions } from '../shared/pricing/quote.ts';

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
