import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import {
  DatasetCertificate,
  DatasetProcess,
  putDatasetProcess,
  resolveDatasetCertificate,
  resolveDatasetProcess,
} from '../shared/db/repositories/certificate-dataset.ts';
import { putCertificate, putCertificateAuthority, putCertificateProduct } from '../shared/db/repositories/certificates.ts';
import { putContact } from '../shared/db/repositories/contacts.ts';
import { ensureIdFloor } from '../shared/db/repositories/counters.ts';
import { getCustomer, putCustomer } from '../shared/db/repositories/customers.ts';
import { getDomain, putDomain } from '../shared/db/repositories/domains.ts';
import { raisePriceListVersion } from '../shared/db/repositories/price-snapshots.ts';
import { putPrice, putPromo } from '../shared/db/repositories/prices.ts';
import { putProvider } from '../shared/db/repositories/providers.ts';
import { putRates } from '../shared/db/repositories/rates.ts';
import { putRegistrationLock } from '../shared/db/repositories/registrations.ts';
import { putRegistryDomain, putRegistryTransfer } from '../shared/db/repositories/registry-domains.ts';
import { putTransferLock } from '../shared/db/repositories/transfers.ts';
import { putTemplate, putZone } from '../shared/db/repositories/zone-writes.ts';
import { integrationSettings } from '../shared/integrations.ts';
import { CertificateAuthority, CertificateProduct, type CertificateRecord } from '../shared/model/certificate.ts';
import { ContactRecord } from '../shared/model/contact.ts';
import { CustomerRecord } from '../shared/model/customer.ts';
import { DomainRecord } from '../shared/model/domain.ts';
import { PriceRecord, PromoRecord } from '../shared/model/price.ts';
import { ProviderRecord } from '../shared/model/provider.ts';
import { RateRecord } from '../shared/model/rate.ts';
import { RegistrationLock } from '../shared/model/registration.ts';
import { RegistryDomainRecord, RegistryTransferRecord } from '../shared/model/registry-domain.ts';
import { TransferLock } from '../shared/model/transfer.ts';
import { TemplateRecord, ZoneRecord } from '../shared/model/zone.ts';
import { ValidZoneRecordEntry } from '../shared/model/zone-validation.ts';
import { refreshPriceSnapshot } from '../shared/pricing/price-list-snapshot.ts';
import { DatasetMasterAddress } from '../shared/schemas/address.ts';
import { Handle, Permission, WireTime } from '../shared/schemas/primitives.ts';
import { toWireTime } from '../shared/time.ts';

/** An API key in a dataset: in clear (demo data; hashed on load) or already hashed (an export). */
const DatasetApiKey = v.pipe(
  v.strictObject({
    key: v.optional(v.pipe(v.string(), v.minLength(1))),
    keyHash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
    customer: v.string(),
    user: v.string(),
    permissions: v.array(Permission),
    createdDate: v.optional(WireTime),
  }),
  v.check((k) => (k.key === undefined) !== (k.keyHash === undefined), 'give exactly one of key and keyHash'),
);

/** A zone in a dataset: every record checked by its type, a hidden master public unicast (as every write path checks them). */
const DatasetZone = v.object({
  ...ZoneRecord.entries,
  master: v.optional(DatasetMasterAddress),
  records: v.array(ValidZoneRecordEntry),
  dcvRecords: v.optional(v.array(ValidZoneRecordEntry)),
});

/** A template in a dataset: every record checked by its type. */
const DatasetTemplate = v.object({ ...TemplateRecord.entries, records: v.array(ValidZoneRecordEntry) });

/**
 * A dataset file: the demo data (infra/demo-data.json), or any other. Every section is optional
 * and each goes through its repository, so a dataset can never hold what the service cannot read.
 */
export const DatasetSchema = v.strictObject({
  /** The JSON Schema an editor checks the file with (docs/dataset.schema.json), as stage files name theirs. */
  $schema: v.optional(v.string()),
  customers: v.optional(v.array(CustomerRecord)),
  apiKeys: v.optional(v.array(DatasetApiKey)),
  contacts: v.optional(v.array(ContactRecord)),
  providers: v.optional(v.array(ProviderRecord)),
  prices: v.optional(v.array(PriceRecord)),
  promos: v.optional(v.array(PromoRecord)),
  rates: v.optional(v.array(RateRecord)),
  templates: v.optional(v.array(DatasetTemplate)),
  domains: v.optional(v.array(DomainRecord)),
  /** Zones with their records inline (the table keeps each record as an item of its own). */
  zones: v.optional(v.array(DatasetZone)),
  /** Domains as the sandbox registry knows them (shared/registry/sandbox.ts, docs/transfer.md). */
  registryDomains: v.optional(v.array(RegistryDomainRecord)),
  /** What the sandbox registry remembers of transfers it was asked for: cancellations, FOA resends (an export carries them). */
  registryTransfers: v.optional(v.array(RegistryTransferRecord)),
  certificateAuthorities: v.optional(v.array(CertificateAuthority)),
  certificateProducts: v.optional(v.array(CertificateProduct)),
  /** Certificates; dates may be relative (`now+25d`), resolved at load time. */
  certificates: v.optional(v.array(DatasetCertificate)),
  /** Processes; dates may be relative like a certificate's (the demo certificates' issuing processes). */
  processes: v.optional(v.array(DatasetProcess)),
  /** Transfers in progress: the domain's pending state beside its process (an export carries them). */
  transferLocks: v.optional(v.array(TransferLock)),
  /** Registrations the registry keeps pending: the name's pending state beside its process, which the poller settles (an export carries them). */
  registrationLocks: v.optional(v.array(RegistrationLock)),
  /** Floors for id sequences (`process`, `zone`, ...), above the ids the dataset itself uses. */
  counters: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer(), v.minValue(0)))),
});
export type Dataset = v.InferOutput<typeof DatasetSchema>;

export interface LoadOptions {
  /** Replace existing items; by default an item already present is kept (so a reload is a no-op). */
  overwrite?: boolean;
  /** Called after each item with the running count and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Give each certificate that has a CSR and no file a certificate signed by the table's sandbox CA
   * (shared/certificates/sandbox-ca.ts). By default when the stage runs the sandbox authority
   * (`CERTIFICATE_AUTHORITY=sandbox`, as `npm start` and the tests choose it).
   */
  sandboxFiles?: boolean;
}

/** Per section: how many items were written and how many were already there and kept. */
export type LoadReport = Record<string, { written: number; kept: number }>;

/** Every problem of a dataset, each as `path: message` (`(root)` for the file as a whole); none when it is valid. */
export function datasetProblems(data: unknown): string[] {
  const result = v.safeParse(DatasetSchema, data);
  return result.success ? [] : result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
}

/** What the table holds, for the references a dataset makes to items it does not carry itself. */
export interface HeldInTable {
  customer(handle: string): Promise<boolean>;
  domain(domainName: string): Promise<boolean>;
}

/** The table as `load` consults it. */
export const heldInTable: HeldInTable = {
  customer: async (handle) => (await getCustomer(handle)) !== undefined,
  domain: async (domainName) => (await getDomain(domainName)) !== undefined,
};

/**
 * The references a valid dataset makes that hold nothing: an item of every section naming a
 * `customer` that is no handle, or that neither the dataset nor the table (when given) holds; a managed
 * zone whose domain neither holds (it would be served on DNS and 404 in the API). Each with its path.
 */
export async function referenceProblems(dataset: Dataset, table?: HeldInTable): Promise<string[]> {
  const problems: string[] = [];
  const customers = new Set((dataset.customers ?? []).map((c) => c.handle));
  const domains = new Set((dataset.domains ?? []).map((d) => d.domainName));
  const where = table ? 'neither the dataset nor the table holds' : 'the dataset does not hold';
  const known = new Map<string, boolean>();
  const held = async (key: string, inDataset: boolean, inTable: () => Promise<boolean>) => {
    if (inDataset) return true;
    if (!table) return false;
    if (!known.has(key)) known.set(key, await inTable());
    return known.get(key) as boolean;
  };
  for (const [section, items] of Object.entries(dataset)) {
    if (!Array.isArray(items)) continue;
    for (const [i, item] of items.entries()) {
      const customer = (item as { customer?: unknown }).customer;
      if (typeof customer !== 'string') continue;
      const handle = v.safeParse(Handle, customer);
      if (!handle.success) problems.push(`${section}.${i}.customer: '${customer}' is no customer handle (${handle.issues[0].message})`);
      else if (!(await held(`customer ${customer}`, customers.has(customer), () => table?.customer(customer) ?? Promise.resolve(false))))
        problems.push(`${section}.${i}.customer: customer '${customer}', which ${where}`);
    }
  }
  for (const [i, zone] of (dataset.zones ?? []).entries()) {
    // A managed zone is served on DNS: without its domain the API would 404 on what DNS answers.
    if (zone.managed !== true) continue;
    if (
      !(await held(
        `domain ${zone.domainName}`,
        domains.has(zone.domainName),
        () => table?.domain(zone.domainName) ?? Promise.resolve(false),
      ))
    )
      problems.push(
        `zones.${i}.domainName: domain '${zone.domainName}', which ${where} (its zone would be served on DNS, and 404 in the API)`,
      );
  }
  return problems;
}

/** Validates a dataset, naming the first problems with their paths. */
export function parseDataset(data: unknown): Dataset {
  const result = v.safeParse(DatasetSchema, data);
  if (result.success) return result.output;
  const problems = result.issues.slice(0, 5).map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
  throw new Error(`Invalid dataset: ${problems.join('; ')}`);
}

export async function readDatasetFile(file: string): Promise<Dataset> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read dataset ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`Dataset ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseDataset(json);
}

/** Loads a dataset through the repositories; idempotent unless `overwrite` is set. */
export async function loadDataset(dataset: Dataset, options: LoadOptions = {}): Promise<LoadReport> {
  const references = await referenceProblems(dataset, heldInTable);
  if (references.length > 0) {
    const shown = references.slice(0, 10).join('; ');
    throw new Error(`Invalid dataset, nothing written: ${shown}${references.length > 10 ? `; and ${references.length - 10} more` : ''}`);
  }
  const ifAbsent = !options.overwrite;
  const sandboxFiles = options.sandboxFiles ?? process.env[integrationSettings.authority]?.trim() === 'sandbox';
  // One instant for every relative date, so a demo certificate and the process that issued it agree.
  const loadedAt = new Date();
  const now = toWireTime(loadedAt);
  const sections: [string, (() => Promise<boolean>)[]][] = [
    ['customers', (dataset.customers ?? []).map((c) => () => putCustomer(c, ifAbsent))],
    [
      'apiKeys',
      (dataset.apiKeys ?? []).map(
        (k) => () =>
          putApiKey(
            {
              keyHash: k.keyHash ?? hashApiKey(k.key as string),
              customer: k.customer,
              user: k.user,
              permissions: k.permissions,
              createdDate: k.createdDate ?? now,
            },
            ifAbsent,
          ),
      ),
    ],
    ['contacts', (dataset.contacts ?? []).map((c) => () => putContact(c, ifAbsent))],
    ['providers', (dataset.providers ?? []).map((p) => () => putProvider(p, ifAbsent))],
    // The lists' versions are raised once per customer around these writes, and their snapshots rebuilt after them.
    ['prices', (dataset.prices ?? []).map((p) => () => putPrice(p, ifAbsent, false))],
    ['promos', (dataset.promos ?? []).map((p) => () => putPromo(p, ifAbsent, false))],
    ['rates', (dataset.rates ?? []).map((r) => () => putRates(r, ifAbsent))],
    ['templates', (dataset.templates ?? []).map((t) => () => putTemplate(t, ifAbsent))],
    ['domains', (dataset.domains ?? []).map((d) => () => putDomain(d, ifAbsent))],
    ['zones', (dataset.zones ?? []).map((z) => () => putZone(z, ifAbsent))],
    ['certificateAuthorities', (dataset.certificateAuthorities ?? []).map((a) => () => putCertificateAuthority(a, ifAbsent))],
    ['certificateProducts', (dataset.certificateProducts ?? []).map((p) => () => putCertificateProduct(p, ifAbsent))],
    [
      'certificates',
      (dataset.certificates ?? []).map(
        (c) => async () => putCertificate(await withSandboxFile(resolveDatasetCertificate(c, loadedAt), sandboxFiles), ifAbsent),
      ),
    ],
    ['processes', (dataset.processes ?? []).map((p) => () => putDatasetProcess(resolveDatasetProcess(p, loadedAt), ifAbsent))],
    ['registryDomains', (dataset.registryDomains ?? []).map((d) => () => putRegistryDomain(d, ifAbsent))],
    ['registryTransfers', (dataset.registryTransfers ?? []).map((t) => () => putRegistryTransfer(t, ifAbsent))],
    ['transferLocks', (dataset.transferLocks ?? []).map((l) => () => putTransferLock(l, ifAbsent))],
    ['registrationLocks', (dataset.registrationLocks ?? []).map((l) => () => putRegistrationLock(l, ifAbsent))],
  ];
  // Whose price lists this load writes: their snapshots are stale from before the first write to after the rebuild.
  const priceLists = [...new Set([...(dataset.prices ?? []), ...(dataset.promos ?? [])].map((p) => p.customer))];
  for (const customer of priceLists) await raisePriceListVersion(customer);
  const total = sections.reduce((n, [, tasks]) => n + tasks.length, 0);
  let done = 0;
  const report: LoadReport = {};
  for (const [name, tasks] of sections) {
    const entry = { written: 0, kept: 0 };
    report[name] = entry;
    await forEachLimited(tasks, 16, async (task) => {
      if (await task()) entry.written++;
      else entry.kept++;
      options.onProgress?.(++done, total);
    });
  }
  for (const [sequence, floor] of Object.entries(dataset.counters ?? {})) await ensureIdFloor(sequence, floor);
  // Each price list written is served from its snapshot from its first request on (shared/pricing/price-list-snapshot.ts).
  await forEachLimited(priceLists, 4, refreshPriceSnapshot);
  return report;
}

/**
 * A dataset certificate with the file the sandbox authority would have delivered: signed by the
 * table's sandbox CA for its names and its CSR's key, valid from its startDate to its expiryDate.
 * A certificate with a file, or without a CSR, is loaded as it is.
 */
async function withSandboxFile(record: CertificateRecord, sign: boolean): Promise<CertificateRecord> {
  if (!sign || record.certificate !== undefined || record.csr === undefined) return record;
  const { signSandboxCertificate } = await import('../shared/certificates/sandbox-ca.ts');
  const signed = await signSandboxCertificate({
    serialNumber: record.serialNumber,
    commonName: record.commonName,
    names: [record.commonName, ...record.san.filter((name) => name !== record.commonName)],
    ...(record.organization ? { organization: record.organization } : {}),
    startDate: record.startDate,
    expiryDate: record.expiryDate,
    csr: record.csr,
  });
  return { ...record, certificate: signed.certificate, chain: signed.chain };
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++] as T);
  });
  await Promise.all(workers);
}

/** The demo dataset shipped with the project (README: "Demo data"). */
export const demoDataFile = new URL('./demo-data.json', import.meta.url).pathname;
