import * as v from 'valibot';
import { Amounts, ProcessStatus, ResumeType } from '../model/process.ts';
import { Billable } from '../model/quote.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * A process as the API answers it (contract section 5, the SDKs' Process models), and a page of
 * them, as schemas: the OpenAPI document and the answer checks use them, the use cases take their
 * types. Kept apart from the use cases, so functions carry none of it.
 */

/** The process record of `GET /v2/processes/{processId}` and of each entity of the list. */
export const ProcessView = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  user: v.pipe(v.string(), v.description('`<customer>/<login>` of the user who started it.')),
  customer: v.string(),
  status: ProcessStatus,
  statusDetail: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'A transfer: its transfer status (`pendingfoa`, `completed`, ...). A certificate request needing attention: `SSL_REQUIRES_ATTENTION`. Absent otherwise.',
      ),
    ),
  ),
  resumeTypes: v.pipe(v.array(ResumeType), v.description('What the caller may ask now: `CANCEL` (DELETE) and `RESEND` (POST .../resend).')),
  createdDate: WireTime,
  updatedDate: WireTime,
  startedDate: v.pipe(WireTime, v.description('When it started running (processes run from the moment they are recorded).')),
  type: v.pipe(v.string(), v.description('`domain`, `certificate`, `acme`.')),
  action: v.pipe(v.string(), v.description('`transfer`, `renew`, `request`.')),
  identifier: v.pipe(v.string(), v.description('What it acts on: a domain name, a common name.')),
  billables: v.array(Billable),
  command: v.optional(
    v.pipe(
      v.record(v.string(), v.unknown()),
      v.description('The request that started it, with the path parameters; auth codes, CSRs and phone numbers left out.'),
    ),
  ),
  refund: v.optional(v.pipe(Amounts, v.description('What was refunded when it ended without completing: cents per currency.'))),
});
export type ProcessView = v.InferOutput<typeof ProcessView>;

/** A field of a process record (what `fields` may name). */
export type ProcessField = keyof ProcessView;

/** A process with only the fields `fields` asked for. */
export const ProcessSelection = v.pipe(
  v.partial(ProcessView),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);
export type ProcessSelection = v.InferOutput<typeof ProcessSelection>;

/** One page of the list (the SDKs' Page and Pagination models). */
export const ProcessPage = v.strictObject({
  entities: v.array(v.union([ProcessView, ProcessSelection])),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many processes match; left out with `total=false`.'))),
  }),
});
export type ProcessPage = v.InferOutput<typeof ProcessPage>;

/** The demo data's process 501 as the API answers it, the documents' example: the OV certificate request needing attention. */
export const process501 = {
  id: 501,
  user: 'demo/alice',
  customer: 'demo',
  status: 'RUNNING',
  statusDetail: 'SSL_REQUIRES_ATTENTION',
  resumeTypes: ['CANCEL'],
  createdDate: '2026-11-18T10:00:00Z',
  updatedDate: '2026-11-19T09:30:00Z',
  startedDate: '2026-11-18T10:00:00Z',
  type: 'certificate',
  action: 'request',
  identifier: 'shop.demo-secure.com',
  billables: [
    { product: 'ssl_sectigo_ov', action: 'REQUEST', quantity: 1, amount: 6900, providerName: 'sectigo', refundable: true, total: 6900 },
  ],
  command: {
    product: 'ssl_sectigo_ov',
    period: 12,
    domainName: 'shop.demo-secure.com',
    san: ['www.shop.demo-secure.com'],
    organization: 'Demo Hosting B.V.',
    state: 'Noord-Holland',
    address: 'Keizersgracht 100',
    postalCode: '1015 AA',
    city: 'Amsterdam',
    language: 'NL',
    uniqueValue: 'demo501shop',
    approver: { firstName: 'Anna', lastName: 'de Vries', jobTitle: 'Director', email: 'anna@demo-hosting.example' },
    dcv: [
      { commonName: 'shop.demo-secure.com', type: 'EMAIL', email: 'admin@demo-secure.com' },
      { commonName: 'www.shop.demo-secure.com', type: 'FILE' },
    ],
  },
};
