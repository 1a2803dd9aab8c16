import { type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import {
  bodyErrors,
  commonErrors,
  type DocumentedHeader,
  type ErrorType,
  errorBodies,
  type OperationDocs,
  type ResponseDoc,
} from '../../shared/http/api-docs.ts';
import { type Route, routes } from '../../shared/routes.ts';
import { docs as ownDocs } from './openapi.ts';

/**
 * The OpenAPI 3.1 document, generated from the route table and, per route, its request schema and
 * its `functions/<dir>/openapi.ts` (responses, errors, examples). Nothing here is written by hand
 * per operation, so the document cannot describe a route the table does not have, and every route
 * of the table must describe itself (a route without its docs module fails the generation).
 */

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
};
type Operation = Record<string, unknown> & { responses: Record<string, Record<string, unknown>> };

/** Where a component lives in the document. */
export const componentRef = (name: string) => `#/components/schemas/${name}`;

type HeaderName = DocumentedHeader | 'X-Request-Id' | 'Retry-After' | 'Cache-Control' | 'X-Content-Type-Options' | 'WWW-Authenticate';

/** Headers every response or some responses carry, described once. */
const headerDocs: Record<HeaderName, { description: string; schema: JsonSchema }> = {
  'X-Request-Id': {
    description: 'The request id; error bodies repeat it as `requestId`. Quote it when asking for support.',
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'Strong entity tag of the body; send it as `If-None-Match` to get 304 while unchanged (compared weakly, so `W/` before it matches too, and so does `*`). A zone\'s tag starts with its revision (`"r12.<hash>"`; a zone write answers `"r13"`): send it as `If-Match` on the zone\'s next write, which then answers 412 if another write came first.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      '`private, no-cache` on a tagged answer (a GET or HEAD answering 200 or 304, with its ETag): the caller may keep it and must revalidate it; `no-store` on every other answer. No answer is for shared caches.',
    schema: { type: 'string', enum: ['private, no-cache', 'no-store'] },
  },
  'X-Content-Type-Options': {
    description: 'Always `nosniff`: the content type is the one to go by.',
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme: send `Authorization: ApiKey <key>`.',
    schema: { type: 'string', enum: ['ApiKey'] },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'x-process-id': {
    description: 'The id of the process the call created (not sent for quotes).',
    schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
  },
  'X-Exchange-Rate-Date': {
    description: 'The date of the exchange rates used, when the list was converted (`currency`).',
    schema: { type: 'string', format: 'date' },
  },
  Vary: {
    description:
      '`Accept-Encoding` on every answer from the API (its body may be compressed); the zone adds `Accept` (a JSON and a zone-file representation).',
    schema: { type: 'string' },
  },
  'Content-Encoding': {
    description:
      '`br` or `gzip` when the body (over 1 KB) is compressed, as `Accept-Encoding` allowed; a compressed answer has its own ETag.',
    schema: { type: 'string', enum: ['br', 'gzip'] },
  },
  'Idempotent-Replayed': {
    description: '`true` when the answer is the stored answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Content-Disposition': {
    description: '`attachment` with the name of the file downloaded (a certificate download).',
    schema: { type: 'string' },
  },
};

const conversion = {
  target: 'draft-2020-12',
  errorMode: 'ignore',
  overrideRef: ({ referenceId }: { referenceId: string }) => componentRef(referenceId),
} as const;

/** Our responses never carry undeclared properties: say so, so that the conformance check catches drift. */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) closeObjects(item);
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  for (const value of Object.values(s)) closeObjects(value);
}

/**
 * Contract section 1: a `null` in an optional body field means the field is absent. Says so in a
 * request body's schema: every property an object does not require also takes `null`, at any depth.
 */
function nullableOptionals(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) nullableOptionals(item);
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  for (const value of Object.values(s)) nullableOptionals(value);
  const properties = s.properties as Record<string, unknown> | undefined;
  if (s.type !== 'object' || !properties) return;
  const required = new Set((s.required as string[] | undefined) ?? []);
  for (const [name, property] of Object.entries(properties)) {
    if (!required.has(name)) properties[name] = { anyOf: [property, { type: 'null', description: 'The same as leaving the field out.' }] };
  }
}

function inline(schema: v.GenericSchema, definitions?: Record<string, v.GenericSchema>): JsonSchema {
  const {
    $schema: _s,
    $defs: _d,
    ...rest
  } = toJsonSchema(schema, { ...conversion, ...(definitions ? { definitions } : {}) }) as Record<string, unknown>;
  return rest as JsonSchema;
}

/**
 * A route's docs: the `docs` export of its `functions/<dir>/openapi.ts`, found by the route's dir.
 * The import names the folder pattern, so esbuild bundles every `functions/<dir>/openapi.ts` into
 * this function (and only this one) and a new route's docs need no list of their own.
 */
const loaded = new Map<string, Promise<OperationDocs>>();
export function docsOf(route: Route): Promise<OperationDocs> {
  let docs = loaded.get(route.dir);
  if (!docs) {
    if (!/^[a-z0-9-]+$/.test(route.dir)) throw new Error(`Route '${route.id}' has a dir that is no folder name: '${route.dir}'`);
    // This folder's own docs by their own path (Vite names a sibling by `./`, not by `../openapi/`).
    const module = route.dir === 'openapi' ? Promise.resolve({ docs: ownDocs }) : import(`../${route.dir}/openapi.ts`);
    docs = module.then(
      (module: { docs?: OperationDocs }) => {
        if (!module.docs) throw new Error(`functions/${route.dir}/openapi.ts of route '${route.id}' exports no \`docs\``);
        return module.docs;
      },
      (cause: unknown) => {
        throw new Error(`Route '${route.id}' has no docs: add functions/${route.dir}/openapi.ts exporting \`docs\``, { cause });
      },
    );
    loaded.set(route.dir, docs);
  }
  return docs;
}

/** The object entries of a `{path, query, body}` request schema. */
function requestParts(route: Route, request: v.GenericSchema) {
  const entries = (request as unknown as { entries?: Record<string, v.GenericSchema> }).entries;
  if (!entries?.path || !entries.query || !entries.body)
    throw new Error(`The request schema of '${route.id}' is not an object of path, query and body`);
  return { path: entries.path, query: entries.query, body: entries.body };
}

function parameters(route: Route, docs: OperationDocs, where: 'path' | 'query', schema: v.GenericSchema) {
  const json = inline(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const example = docs.examples[where]?.[name];
    if (where === 'path' && example === undefined) throw new Error(`Route '${route.id}' has no example for path parameter '${name}'`);
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      schema: s,
      ...(example !== undefined ? { example } : {}),
    };
  });
}

/** The headers every answer carries. */
const everyAnswer: { name: HeaderName; required: true }[] = [
  { name: 'X-Request-Id', required: true },
  { name: 'Cache-Control', required: true },
  { name: 'X-Content-Type-Options', required: true },
];

/** Headers any answer of the API may carry: its coding (shared/http/encoding.ts). */
const encodingHeaders = ['Vary', 'Content-Encoding'] as const;

function headers(names: readonly { name: HeaderName; required?: boolean }[]) {
  return Object.fromEntries(names.map(({ name, required }) => [name, { ...headerDocs[name], required: required ?? false }]));
}

function successResponse(route: Route, status: string, doc: ResponseDoc, definitions: Record<string, v.GenericSchema>, untagged = false) {
  const names: { name: HeaderName; required?: boolean }[] = [...everyAnswer];
  if (route.method === 'GET' && status === '200' && !untagged) names.push({ name: 'ETag', required: true });
  names.push(...(doc.headers ?? []));
  for (const name of encodingHeaders) if (!names.some((n) => n.name === name)) names.push({ name });
  const content = doc.content
    ? Object.fromEntries(
        Object.entries(doc.content).map(([type, c]) => {
          if ('json' in c) {
            const schema = inline(c.json, definitions);
            closeObjects(schema);
            const examples = Object.fromEntries(Object.entries(c.examples ?? {}).map(([name, value]) => [name, { value }]));
            return [type, { schema, ...(c.examples ? { examples } : {}) }];
          }
          return [type, { schema: { type: 'string', description: c.text }, ...(c.example !== undefined ? { example: c.example } : {}) }];
        }),
      )
    : undefined;
  return { description: doc.description, headers: headers(names), ...(content ? { content } : {}) };
}

/** The error responses of an operation, grouped by status, each a oneOf of contract error bodies. */
function errorResponses(docs: OperationDocs, hasBody: boolean, hasParameters: boolean) {
  const types = new Set<ErrorType>(docs.auth === false ? ['TooManyRequests', 'InternalError'] : [...commonErrors, ...docs.errors]);
  if (hasBody) for (const t of bodyErrors) types.add(t);
  if (hasParameters) types.add('ConstraintViolationException');
  const byStatus = new Map<number, ErrorType[]>();
  for (const type of types) {
    for (const status of errorBodies[type].statuses) {
      // 415 is only for a wrong content type, which only body routes check; ObjectDoesNotExist is a
      // 400 for an object the body refers to, a 404 for the object the path names.
      if (status === 415 && !hasBody) continue;
      if (type === 'ObjectDoesNotExist' && status === 400 && !hasBody) continue;
      if (type === 'ObjectDoesNotExist' && status === 404 && !docs.pathObject) continue;
      // ObjectExists is a 409 where the operation creates an object under a handle the caller chose (a contact), else a 400.
      if (type === 'ObjectExists' && status === (docs.existsIsConflict ? 400 : 409)) continue;
      byStatus.set(status, [...(byStatus.get(status) ?? []), type]);
    }
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const refs = list.map((t) => ({ $ref: componentRef(t) }));
    const names: { name: HeaderName; required?: boolean }[] = [...everyAnswer];
    if (status === 429 || status === 503) names.push({ name: 'Retry-After', required: true });
    if (status === 401) names.push({ name: 'WWW-Authenticate', required: true });
    for (const name of encodingHeaders) names.push({ name });
    out[String(status)] = {
      description: list.map((t) => `\`${t}\``).join(', '),
      headers: headers(names),
      content: { 'application/json': { schema: refs.length === 1 ? refs[0] : { oneOf: refs } } },
    };
  }
  return out;
}

function operationId(id: string): string {
  return id.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

async function operation(route: Route, definitions: Record<string, v.GenericSchema>): Promise<Operation> {
  const docs = await docsOf(route);
  const parts = requestParts(route, docs.request);
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  const params = [
    ...parameters(route, docs, 'path', parts.path),
    ...parameters(route, docs, 'query', parts.query),
    ...(docs.requestHeaders ?? []).map((h) => ({
      name: h.name,
      in: 'header',
      required: false,
      description: h.description,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      ...(h.example !== undefined ? { example: h.example } : {}),
    })),
  ];
  const responses: Operation['responses'] = {};
  for (const [status, doc] of Object.entries(docs.responses))
    responses[status] = successResponse(route, status, doc, definitions, docs.untagged);
  if (route.method === 'GET' && !docs.untagged) {
    // A 304 carries the headers the 200 would have carried, without the body.
    const ok = responses['200']?.headers as Record<string, unknown> | undefined;
    responses['304'] = { description: 'Not modified: `If-None-Match` matched the current ETag. No body.', headers: { ...ok } };
  }
  Object.assign(
    responses,
    errorResponses(
      docs,
      hasBody,
      params.some((p) => p.in !== 'header'),
    ),
  );
  const bodySchema = hasBody ? inline(parts.body) : undefined;
  nullableOptionals(bodySchema);
  const requestBody = bodySchema
    ? {
        required: docs.optionalBody !== true,
        content: {
          'application/json': {
            schema: bodySchema,
            ...(docs.examples.body ? { examples: docs.examples.body } : {}),
          },
        },
      }
    : undefined;
  return {
    operationId: operationId(route.id),
    summary: route.summary,
    description: docs.description,
    tags: docs.tags,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    ...(route.auth === false ? { security: [] } : {}),
  };
}

/** HEAD beside a GET (contract section 1): the same answers, status and headers, without a body. */
function headOperation(get: Operation): Operation {
  const { requestBody: _none, ...rest } = get;
  const responses = Object.fromEntries(
    Object.entries(get.responses).map(([status, { content: _body, ...answer }]) => [
      status,
      { ...answer, description: `${String(answer.description)} No body.` },
    ]),
  );
  return {
    ...rest,
    operationId: `${String(get.operationId)}Head`,
    summary: `${String(get.summary)} HEAD: the headers of the GET, without the body.`,
    responses,
  };
}

/** Every named schema: the routes' components and the contract's error bodies; one name, one schema. */
async function collectDefinitions(): Promise<Record<string, v.GenericSchema>> {
  const definitions: Record<string, v.GenericSchema> = {};
  const add = (name: string, schema: v.GenericSchema, owner: string) => {
    if (definitions[name] && definitions[name] !== schema)
      throw new Error(`Component '${name}' of ${owner} clashes with another schema of that name`);
    definitions[name] = schema;
  };
  for (const [type, { schema }] of Object.entries(errorBodies)) add(type, schema, 'the error bodies');
  for (const route of routes)
    for (const [name, schema] of Object.entries((await docsOf(route)).components ?? {})) add(name, schema, route.id);
  return definitions;
}

export interface DocumentOptions {
  /** The base URL the paths are relative to (no trailing slash); default: the local sandbox. */
  serverUrl?: string;
}

/** Builds the whole document from the route table (a few tens of milliseconds). */
export async function buildDocument(options: DocumentOptions = {}): Promise<OpenApiDocument> {
  const definitions = await collectDefinitions();
  const schemas = toJsonSchemaDefs(definitions, conversion) as Record<string, JsonSchema>;
  closeObjects(schemas);
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const operations = paths[route.path] ?? {};
    const described = await operation(route, definitions);
    operations[route.method.toLowerCase()] = described;
    if (route.method === 'GET') operations.head = headOperation(described);
    paths[route.path] = operations;
  }
  const tags = [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags as string[])))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Registrar API',
      version: '2.0.0',
      summary: 'Domain transfer-in, certificate renewal, processes, registry metadata, price lists and DNS zones.',
      description:
        "Every route is under `/v2`. Authenticate with the header `Authorization: ApiKey <key>` (the sandbox's demo key is `demo-key`). Bodies are `application/json; charset=utf-8`; timestamps `yyyy-MM-ddTHH:mm:ssZ` (UTC); money in integer cents. Errors are `{type, message, requestId, ...}` (contract section 2); a trailing slash is accepted on every path. A `null` in an optional body field means the field is absent; a `null` in a required one is a violation on it. A query parameter given twice is a violation. Every GET also answers HEAD. Every answer carries `X-Request-Id`, `Cache-Control` and `X-Content-Type-Options: nosniff`, refusals made before any operation runs included (a body over the payload limit, an oversized request line or headers, an unknown method): those are contract error bodies too.",
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.serverUrl ?? 'http://127.0.0.1:3000', description: 'Clients use this URL plus `/v2/` as their base URL.' }],
    security: [{ ApiKey: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'The whole header value: `ApiKey <key>` (sandbox: `ApiKey demo-key`). Keys are created with `npm run admin -- create-key`.',
        },
      },
    },
  };
}
