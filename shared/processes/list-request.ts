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
import { processStatuses } from '../model/process.ts';
import { transferStatuses } from '../model/transfer.ts';
import type { ProcessField } from './process-view.ts';
import { processFields, sslRequiresAttention } from './view.ts';

/**
 * The query of `GET /v2/processes` (the generic listing of shared/listing/query.ts, described for
 * processes) and the `fields` of `GET /v2/processes/{processId}`.
 */

/** The values `detailStatus` takes: the transfer statuses and SSL_REQUIRES_ATTENTION. */
export const detailStatuses: readonly string[] = [...transferStatuses, sslRequiresAttention];

/** Fields that can be filtered on, and the matchers each one takes (`eq` is `field=value`). */
export const filterMatchers = {
  status: ['eq', 'ne', 'in'],
  type: ['eq', 'ne', 'in', 'like'],
  action: ['eq', 'ne', 'in', 'like'],
  identifier: ['eq', 'ne', 'in', 'like', 'null', 'not_null'],
  createdDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  detailStatus: ['eq', 'ne', 'in', 'null', 'not_null'],
} as const;
export type FilterField = keyof typeof filterMatchers;

/** The process listing as the generic listing describes it. */
export const processListSpec: ListSpec<FilterField, ProcessField> = {
  noun: 'processes',
  filters: filterMatchers,
  closedValues: { status: processStatuses, detailStatus: detailStatuses },
  dates: ['createdDate'],
  fields: processFields,
  identifying: ['id', 'type', 'action', 'identifier', 'status'],
  // Ids are claimed in creation order, so createdDate and id sort alike: the first key decides.
  orders: ['id', 'createdDate'],
  defaultOrder: '-id',
  search: ['identifier', 'type', 'action', 'status', 'detailStatus'],
};

export type ProcessFilter = Filter<FilterField>;
/** The listing a caller asked for. */
export type ProcessQuery = ListQuery<FilterField, ProcessField>;

/** The parameters of `GET /v2/processes`: the documented ones, and any further (filter) parameter. */
const ListParameters = v.objectWithRest(
  {
    ...generalParameters(processListSpec),
    status: filterParameter('status', 'RUNNING'),
    type: filterParameter('type', 'certificate'),
    action: filterParameter('action', 'transfer'),
    identifier: filterParameter('identifier', 'transfer-wait.com'),
    createdDate: filterParameter('createdDate', '2026-11-21'),
    detailStatus: filterParameter('detailStatus', sslRequiresAttention),
  },
  v.array(v.string()),
);

/** The query of `GET /v2/processes`, parsed into a ProcessQuery. */
export const ProcessListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, ProcessQuery>((query, problems) => parseListQuery(processListSpec, query, problems)),
);

/** The query of a GET of one process: `fields` only (other parameters are ignored). */
export const ProcessFieldsQuery = fieldsQuery<ProcessField>(processFields, 'process');
