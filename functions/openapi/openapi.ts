import * as v from 'valibot';
import type { OperationDocs } from '../../shared/http/api-docs.ts';

/** GET /v2/openapi.json: nothing to pass. */
export const OpenApiRequest = v.object({ path: v.object({}), query: v.object({}), body: v.undefined() });

/** The document itself, described loosely (the OpenAPI 3.1 schema describes it fully). */
const open = <E extends v.ObjectEntries>(entries: E) => v.objectWithRest(entries, v.unknown());
const OpenApiBody = open({
  openapi: v.literal('3.1.0'),
  info: open({ title: v.string(), version: v.string() }),
  servers: v.array(open({ url: v.string() })),
  paths: v.record(v.string(), v.record(v.string(), v.unknown())),
  components: open({}),
});

/** GET /v2/openapi.json in the OpenAPI document. */
export const docs: OperationDocs = {
  request: OpenApiRequest,
  description: 'This document. Served without authentication; `servers` names the host and stage it was fetched from.',
  tags: ['API description'],
  responses: { '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { json: OpenApiBody } } } },
  errors: [],
  examples: {},
  auth: false,
};
