import { randomUUID } from 'node:crypto';
import { handler as contacts } from '../functions/contacts/handler.ts';
import { lambdaContext } from '../infra/local/gateway.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import { newContactItems, setContactCount } from '../shared/db/repositories/contacts.ts';
import type { ContactRecord } from '../shared/model/contact.ts';
import { apiEvent } from '../test/support/api.ts';
import { fullItemsRead, recordTableCalls } from '../test/support/sdk-calls.ts';
import { kb, ms, percentile, quietly, table } from './report.ts';

/**
 * The contact list at the size of a big address book (docs/performance.md): a customer with
 * 10,000 contacts, the listing shapes the SDKs and the WHMCS module send, through the real
 * handler: calls, index entries read (keys-only indexes), whole items read, what DynamoDB returned,
 * the median time and the answer's size. A request that fails is a row of its own.
 */

type Answer = { statusCode: number; body: string };

export const contactScaleCustomer = 'contacts10k';

function listEvent(customer: string, query: string) {
  const params = new URLSearchParams(query);
  const path = `/v2/customers/${customer}/contacts`;
  const event = apiEvent({
    method: 'GET',
    path,
    resource: '/v2/customers/{customer}/contacts',
    pathParameters: { customer },
    principal: { customer, user: 'bench', permissions: [] },
  });
  const multi: Record<string, string[]> = {};
  for (const k of new Set(params.keys())) multi[k] = params.getAll(k);
  const any = Object.keys(multi).length > 0;
  event.multiValueQueryStringParameters = any ? multi : null;
  event.queryStringParameters = any ? Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals.at(-1) as string])) : null;
  return event;
}

/** `count` contacts of `customer`, one in ten without an organization, one in four in Belgium; counted. */
export async function loadScaleContacts(count: number, customer = contactScaleCustomer): Promise<void> {
  const items = Array.from({ length: count }, (_, i) => i).flatMap((i) => {
    const n = String(i + 1).padStart(6, '0');
    const record: ContactRecord = {
      customer,
      handle: `contact-${n}`,
      brand: 'default',
      name: `Person ${n}`,
      ...(i % 10 === 0 ? {} : { organization: `Company ${i % 500}` }),
      addressLine: [`Straat ${i + 1}`],
      postalCode: '1000 AA',
      city: 'Amsterdam',
      country: i % 4 === 0 ? 'BE' : 'NL',
      email: `person${n}@example.nl`,
      voice: `+31.20${n}`,
      createdDate: `${new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString().slice(0, 19)}Z`,
    };
    return newContactItems(record).map((put) => ({ put }));
  });
  await batchWriteAll(items);
  await setContactCount(customer, count);
}

/** The listing shapes: the SDKs' defaults, deep pages, the WHMCS module's queries, filters no index answers. */
export function contactListShapes(count: number): [string, string][] {
  return [
    ['first page (total by default)', ''],
    ['limit=100', 'limit=100'],
    ['offset=9000 (deep page, skipped over keys)', 'offset=9000'],
    ['order=-createdDate', 'order=-createdDate'],
    ['order=-createdDate&offset=5000', 'order=-createdDate&offset=5000'],
    ['limit=0 (the total only)', 'limit=0'],
    ['handle=contact-004321 (one contact)', 'handle=contact-004321'],
    ['organization:null= (WHMCS)', 'organization:null=&limit=100'],
    ['country=BE&total=false', 'country=BE&total=false'],
    ['q=person0099 (a search)', 'q=person0099'],
    [`export=true&fields=handle (all ${count.toLocaleString('en')})`, 'export=true&fields=handle'],
    [`export=true (all ${count.toLocaleString('en')}, the identifying fields)`, 'export=true'],
  ];
}

export async function benchContactList(count = 10_000, runs = 20): Promise<void> {
  const loadStart = performance.now();
  await quietly(() => loadScaleContacts(count));
  const loadSeconds = ((performance.now() - loadStart) / 1000).toFixed(0);
  const rows: (string | number)[][] = [];
  for (const [label, query] of contactListShapes(count)) {
    const once = async () =>
      (await contacts(listEvent(contactScaleCustomer, query), lambdaContext('bench', randomUUID()))) as unknown as Answer;
    try {
      const { result, details } = await quietly(() => recordTableCalls(once));
      const read = details.reduce((n, d) => n + d.itemsRead, 0);
      const whole = fullItemsRead(details);
      const counted = [details.length, read - whole, whole, kb(details.reduce((n, d) => n + d.bytesAnswered, 0))];
      if (result.statusCode !== 200) {
        const type = (JSON.parse(result.body) as { type?: string }).type ?? '';
        rows.push([label, `failed: ${result.statusCode} ${type}`, ...counted, '-', '-']);
        continue;
      }
      const samples: number[] = [];
      await quietly(async () => {
        for (let i = 0; i < runs + 3; i++) {
          const t = performance.now();
          await once();
          if (i >= 3) samples.push(performance.now() - t);
        }
      });
      samples.sort((x, y) => x - y);
      rows.push([label, 200, ...counted, ms(percentile(samples, 50)), kb(Buffer.byteLength(result.body))]);
    } catch (error) {
      rows.push([label, `failed: ${(error as Error).name}: ${(error as Error).message.slice(0, 80)}`, '-', '-', '-', '-', '-', '-']);
    }
  }
  table(
    `Scale: the contact list of a customer with ${count.toLocaleString('en')} contacts (through the handler, ${runs} runs each after 3 warm-up runs; no Scan; loaded in ${loadSeconds} s)`,
    ['request', 'status', 'calls', 'index entries read', 'whole items read', 'KB returned by DynamoDB', 'p50 ms', 'answer KB'],
    rows,
  );
}
