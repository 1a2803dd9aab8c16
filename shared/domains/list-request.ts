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
import { domainStatuses } from '../model/domain.ts';
import type { DomainField } from './domain-view.ts';
import { domainFields } from './view.ts';

/**
 * The query of `GET /v2/domains` (the generic listing of shared/listing/query.ts, described for
 * domains) and the `fields` of `GET /v2/domains/{domainName}`.
 */

/** Fields that can be filtered on, and the matchers each one takes (`eq` is `field=value`). */
export const filterMatchers = {
  domainName: ['eq', 'ne', 'in', 'like'],
  registrant: ['eq', 'ne', 'in', 'like'],
  admin: ['eq', 'ne', 'in', 'null', 'not_null'],
  billing: ['eq', 'ne', 'in', 'null', 'not_null'],
  tech: ['eq', 'ne', 'in', 'null', 'not_null'],
  privacyProtect: ['eq', 'ne'],
  status: ['eq', 'ne', 'in'],
  autoRenew: ['eq', 'ne'],
  autoRenewPeriod: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  expiryDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  createdDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
} as const;
export type DomainFilterField = keyof typeof filterMatchers;

/** The domain listing as the generic listing describes it. */
export const domainListSpec: ListSpec<DomainFilterField, DomainField> = {
  noun: 'domains',
  filters: filterMatchers,
  closedValues: { status: domainStatuses, privacyProtect: ['true', 'false'], autoRenew: ['true', 'false'] },
  dates: ['expiryDate', 'createdDate'],
  fields: domainFields,
  identifying: ['domainName'],
  orders: ['domainName', 'expiryDate'],
  defaultOrder: 'domainName',
  search: ['domainName', 'registrant'],
};

export type DomainFilter = Filter<DomainFilterField>;
/** The listing a caller asked for; `ordered` when the caller named the order. */
export type DomainQuery = ListQuery<DomainFilterField, DomainField> & { ordered: boolean };

/** The parameters of `GET /v2/domains`: the documented ones, and any further (filter) parameter. */
const ListParameters = v.objectWithRest(
  {
    ...generalParameters(domainListSpec),
    domainName: filterParameter('domainName', 'demo-shop.nl'),
    registrant: filterParameter('registrant', 'demo-registrant'),
    status: filterParameter('status', 'CLIENT_TRANSFER_PROHIBITED'),
    autoRenew: filterParameter('autoRenew', 'true'),
    privacyProtect: filterParameter('privacyProtect', 'false'),
    expiryDate: filterParameter('expiryDate', '2027-06-30'),
  },
  v.array(v.string()),
);

/** `autoRenewPeriod` values are months (whole numbers). */
const months = /^\d{1,4}$/;

/** The query of `GET /v2/domains`, parsed into a DomainQuery. */
export const DomainListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, DomainQuery>((query, problems) => {
    const parsed = parseListQuery(domainListSpec, query, problems);
    for (const f of parsed.filters) {
      if (f.field === 'autoRenewPeriod' && !f.values.every((value) => months.test(value))) {
        problems.push({ parameter: `autoRenewPeriod${f.matcher === 'eq' ? '' : `:${f.matcher}`}`, message: 'must be a number of months' });
      }
    }
    return { ...parsed, ordered: query.order !== undefined };
  }),
);

/** The query of a GET of one domain: `fields` only (other parameters are ignored). */
export const DomainFieldsQuery = fieldsQuery<DomainField>(domainFields, 'domain');
