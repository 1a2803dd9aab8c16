import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { datasetProblems, demoDataFile } from '../infra/dataset.ts';
import { datasetJsonSchemaText, datasetSchemaFile } from '../infra/dataset-schema.ts';

const run = promisify(execFile);

/** The admin CLI as an operator runs it. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'infra/admin.ts', ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * The dataset format is documented by a JSON Schema generated from the valibot schemas the loader
 * checks with, and `npm run admin -- validate FILE` names every error of a file with its path.
 */
describe('the dataset format', () => {
  it('ships docs/dataset.schema.json as the valibot schemas generate it (run `npm run dataset-schema` after a change)', () => {
    expect(readFileSync(datasetSchemaFile, 'utf8')).toBe(datasetJsonSchemaText());
    const schema = JSON.parse(readFileSync(datasetSchemaFile, 'utf8'));
    const demo = JSON.parse(readFileSync(demoDataFile, 'utf8'));
    // Every section of the demo data is a property the schema documents, and nothing else is allowed.
    for (const section of Object.keys(demo)) expect(Object.keys(schema.properties), section).toContain(section);
    expect(schema.additionalProperties).toBe(false);
  });

  it('names every error of a dataset with its path, not only the first ones', () => {
    const problems = datasetProblems({
      prices: [{ product: 'x', currency: 'EURO' }],
      apiKeys: [{ customer: 'a' }],
      bogus: 1,
      customers: Array.from({ length: 7 }, () => ({})),
    });
    expect(problems).toContain('prices.0.currency: Invalid type: Expected ("EUR" | "USD") but received "EURO"');
    expect(problems.some((p) => p.startsWith('apiKeys.0.user: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('bogus: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('customers.6.'))).toBe(true);
    expect(datasetProblems(JSON.parse(readFileSync(demoDataFile, 'utf8')))).toEqual([]);
  });

  it('npm run admin -- validate FILE: exit 0 with the sections for a valid file, 1 with every error by path otherwise', async () => {
    const good = await admin('validate', demoDataFile);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/demo-data\.json: valid \(customers 2, apiKeys \d+, /);
    const dir = mkdtempSync(join(tmpdir(), 'dataset-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ prices: [{ product: 'x', currency: 'EURO' }], bogus: 1 }));
    const bad = await admin('validate', file);
    expect(bad.code).toBe(1);
    const lines = bad.stderr.trim().split('\n');
    expect(lines).toContain(`${file}: prices.0.currency: Invalid type: Expected ("EUR" | "USD") but received "EURO"`);
    expect(lines).toContain(`${file}: bogus: Invalid key: Expected never but received "bogus"`);
    expect(lines.at(-1)).toMatch(/: \d+ errors\.$/);
    const missing = await admin('validate');
    expect(missing.code).toBe(2);
  });

  it('takes $schema, as stage files do, and checks references: validate against the dataset, load against the dataset and the table', async () => {
    const demo = JSON.parse(readFileSync(demoDataFile, 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'dataset-refs-'));
    const withSchema = join(dir, 'with-schema.json');
    writeFileSync(withSchema, JSON.stringify({ $schema: '../docs/dataset.schema.json', ...demo }));
    const good = await admin('validate', withSchema);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).not.toContain('$schema');

    const zone = demo.zones.find((z: { managed: boolean }) => z.managed);
    const broken = join(dir, 'references.json');
    writeFileSync(
      broken,
      JSON.stringify({
        customers: demo.customers,
        apiKeys: [{ key: 'k-0123456789', customer: 'de', user: 'x', permissions: [] }],
        prices: [{ ...demo.prices[0], customer: 'nobody-here' }],
        zones: [{ ...zone, domainName: 'no-domain-here.com' }],
      }),
    );
    const bad = await admin('validate', broken);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("apiKeys.0.customer: 'de' is no customer handle");
    expect(bad.stderr).toContain("prices.0.customer: customer 'nobody-here', which the dataset does not hold");
    expect(bad.stderr).toContain("zones.0.domainName: domain 'no-domain-here.com', which the dataset does not hold");

    // load: what the table holds counts (demo is loaded in this file's table), and nothing is written on a problem.
    const onlyTable = join(dir, 'only-table.json');
    writeFileSync(onlyTable, JSON.stringify({ prices: [{ ...demo.prices[0], customer: 'nobody-here' }] }));
    const refused = await admin('load', onlyTable);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("prices.0.customer: customer 'nobody-here', which neither the dataset nor the table holds");
    const fine = join(dir, 'fine.json');
    writeFileSync(fine, JSON.stringify({ $schema: 'x', prices: [demo.prices[0]] }));
    const loaded = await admin('load', fine);
    expect(loaded.code, loaded.stderr).toBe(0);
  });

  it("admin create-key --help prints that command's help, not the whole CLI's", async () => {
    const out = await admin('create-key', '--help');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: npm run admin -- create-key --customer C --user U/);
    expect(out.stdout).toContain('Creates an API key for user U of customer C');
    expect(out.stdout).not.toContain('list-keys');
    expect(out.stdout).not.toContain('Commands:');
  });
});
