import * as v from 'valibot';
import {
  documented,
  type Filter,
  filterParameter,
  generalParameters,
  type ListQuery,
  type ListSpec,
  parseListQuery,
  withProblems,
} from '../listing/query.ts';
import type { ZoneListField } from './zone-view.ts';

/**
 * The query of `GET /v2/dns/zones` (the PHP client's dnsZones->list/export, the TypeScript
 * client's dnsZone.list): the generic listing (shared/listing/query.ts) described for zones, with
 * the filters of issue 37: `name`, `service`, `template`, `dnssec`, `managed` (and `id`).
 */

/** Every field of a listed zone (what `fields` may name). */
export const zoneListFields: readonly ZoneListField[] = [
  'id',
  'name',
  'customer',
  'createdDate',
  'updatedDate',
  'managed',
  'service',
  'template',
  'link',
  'master',
  'dnssec',
  'ns',
  'hostMaster',
  'refresh',
  'retry',
  'expire',
  'ttl',
  'defaultRecords',
];

const text = ['eq', 'ne', 'in', 'like'] as const;

export const filterMatchers = {
  id: ['eq', 'in'],
  name: text,
  service: ['eq', 'ne', 'in'],
  template: [...text, 'null', 'not_null'],
  dnssec: ['eq', 'ne'],
  managed: ['eq', 'ne'],
  createdDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  updatedDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'],
} as const;
export type ZoneFilterField = keyof typeof filterMatchers;

export const zoneListSpec: ListSpec<ZoneFilterField, ZoneListField> = {
  noun: 'zones',
  filters: filterMatchers,
  closedValues: { service: ['BASIC', 'PREMIUM'], dnssec: ['true', 'false'], managed: ['true', 'false'] },
  dates: ['createdDate', 'updatedDate'],
  fields: zoneListFields,
  identifying: ['id', 'name', 'service'],
  // The index lists a customer's zones by name: that is the one order a page can be read in.
  orders: ['name'],
  defaultOrder: 'name',
  search: ['name', 'template'],
};

export type ZoneFilter = Filter<ZoneFilterField>;
export type ZoneQuery = ListQuery<ZoneFilterField, ZoneListField>;

const idValue = /^[1-9][0-9]{0,15}$/;

const ListParameters = v.objectWithRest(
  {
    ...generalParameters(zoneListSpec),
    name: filterParameter('name', 'demo-shop.nl'),
    service: filterParameter('service', 'PREMIUM'),
    template: filterParameter('template', 'demo-template'),
    dnssec: filterParameter('dnssec', 'true'),
    managed: filterParameter('managed', 'true'),
    id: documented('Filter on the zone id: `id=101`, `id:in=101,102`.'),
  },
  v.array(v.string()),
);

/** The query of the zone listing, parsed into a ZoneQuery. */
export const ZoneListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, ZoneQuery>((query, problems) => {
    const parsed = parseListQuery(zoneListSpec, query, problems);
    for (const f of parsed.filters) {
      if (f.field !== 'id') continue;
      for (const value of f.values) {
        if (!idValue.test(value))
          problems.push({ parameter: `id${f.matcher === 'eq' ? '' : `:${f.matcher}`}`, message: 'must be a positive integer', value });
      }
    }
    return parsed;
  }),
);
