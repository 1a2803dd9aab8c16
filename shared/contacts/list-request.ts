import * as v from 'valibot';
import {
  type Filter,
  fieldsQuery,
  filterParameter,
  generalParameters,
  type ListQuery,
  type ListSpec,
  parseListQuery,
  withProblems,
} from '../listing/query.ts';
import type { ContactField } from './contact-view.ts';
import { contactFields } from './view.ts';

/**
 * The query of `GET /v2/customers/{customer}/contacts` (the generic listing of
 * shared/listing/query.ts, described for contacts) and the `fields` of `GET .../contacts/{handle}`.
 */

const text = ['eq', 'ne', 'in', 'like', 'null', 'not_null'] as const;
const date = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'] as const;

/** Fields that can be filtered on, and the matchers each one takes (`eq` is `field=value`). */
export const filterMatchers = {
  handle: ['eq', 'ne', 'in', 'like'],
  brand: ['eq', 'ne', 'in', 'like'],
  name: text,
  organization: text,
  addressLine: text,
  postalCode: text,
  city: text,
  state: text,
  country: ['eq', 'ne', 'in', 'null', 'not_null'],
  email: text,
  voice: text,
  fax: text,
  createdDate: date,
  updatedDate: date,
} as const;
export type FilterField = keyof typeof filterMatchers;

/** The contact listing as the generic listing describes it. */
export const contactListSpec: ListSpec<FilterField, ContactField> = {
  noun: 'contacts',
  filters: filterMatchers,
  dates: ['createdDate', 'updatedDate'],
  fields: contactFields,
  identifying: ['handle', 'name', 'organization', 'email', 'country'],
  orders: ['handle', 'createdDate'],
  defaultOrder: 'handle',
  search: ['handle', 'name', 'organization', 'email'],
};

export type ContactFilter = Filter<FilterField>;
/** The listing a caller asked for; `ordered` when the caller named the order. */
export type ContactQuery = ListQuery<FilterField, ContactField> & { ordered: boolean };

const ListParameters = v.objectWithRest(
  {
    ...generalParameters(contactListSpec),
    handle: filterParameter('handle', 'demo-registrant'),
    name: filterParameter('name', 'Anna de Vries'),
    organization: filterParameter('organization', 'Demo Hosting B.V.'),
    email: filterParameter('email', 'domains@demo-hosting.example'),
    country: filterParameter('country', 'NL'),
    createdDate: filterParameter('createdDate', '2024-03-01'),
  },
  v.array(v.string()),
);

/** The query of `GET /v2/customers/{customer}/contacts`, parsed into a ContactQuery. */
export const ContactListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, ContactQuery>((query, problems) => ({
    ...parseListQuery(contactListSpec, query, problems),
    ordered: query.order !== undefined,
  })),
);

/** The query of a GET of one contact: `fields` only (other parameters are ignored). */
export const ContactFieldsQuery = fieldsQuery<ContactField>(contactFields, 'contact');
