import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildDocument, componentRef, type OpenApiDocument } from '../../functions/openapi/document.ts';
import { matchRoute } from '../../shared/routes.ts';

/**
 * Checks a real response against the OpenAPI document (functions/openapi/document.ts): its status
 * must be documented for the operation, its body must validate against the documented schema of
 * its content type (ajv, JSON Schema 2020-12), every required documented header must be present,
 * and no undocumented header may appear. `call()` and `invoke()` run it on every response the
 * test suite sees, so the document cannot drift from the code.
 */

const documentId = 'https://registrar.invalid/openapi.json';
/** Headers HTTP itself (or the transport) adds; the document need not list them. */
const transportHeaders = new Set(['content-type', 'content-length', 'connection', 'keep-alive', 'date', 'transfer-encoding']);

let state: Promise<{ doc: OpenApiDocument; ajv: Ajv2020 }> | undefined;
const validators = new Map<string, ValidateFunction>();

function load() {
  state ??= buildDocument().then((doc) => {
    const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    // The document's own top-level fields are not schema keywords; the schemas are reached by pointer.
    ajv.addVocabulary(Object.keys(doc));
    ajv.addSchema({ ...doc, $id: documentId } as never);
    return { doc, ajv };
  });
  return state;
}

/** The document the checks use (built once per test file). */
export async function openApiDocument(): Promise<OpenApiDocument> {
  return (await load()).doc;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validator(ajv: Ajv2020, ref: string): ValidateFunction {
  let fn = validators.get(ref);
  if (!fn) {
    fn = ajv.compile({ $ref: ref });
    validators.set(ref, fn);
  }
  return fn;
}

export interface ObservedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Throws (with what is wrong) unless the response conforms to the document. */
export async function assertConforms(method: string, path: string, response: ObservedResponse): Promise<void> {
  const { doc, ajv } = await load();
  const fail = (why: string): never => {
    throw new Error(`${method} ${path} -> ${response.status} does not conform to the OpenAPI document: ${why}`);
  };
  const match = matchRoute(method, path);
  const headers = Object.fromEntries(Object.entries(response.headers).map(([k, val]) => [k.toLowerCase(), val]));
  const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';

  let schemaRef: string | undefined;
  let documented: Record<string, { required?: boolean }> = {
    'X-Request-Id': { required: true },
    'Cache-Control': { required: true },
    'X-Content-Type-Options': { required: true },
    Vary: {},
    'Content-Encoding': {},
  };
  if (match.kind !== 'route') {
    // The fallback: only the contract's NotFound and MethodNotAllowed (with Allow).
    const type = match.kind === 'not-found' ? 'NotFound' : 'MethodNotAllowed';
    if (response.status !== (type === 'NotFound' ? 404 : 405)) fail(`expected the ${type} answer`);
    schemaRef = `${documentId}${componentRef(type)}`;
    if (type === 'MethodNotAllowed') documented.Allow = { required: true };
  } else {
    // HEAD has an operation of its own beside GET: the same answers without bodies.
    const verb = method.toUpperCase() === 'HEAD' ? 'head' : match.route.method.toLowerCase();
    const operationPath = pointer('paths', match.route.path, verb);
    const operation = doc.paths[match.route.path]?.[verb];
    if (!operation) return fail('the operation is not in the document');
    const answer = operation.responses[String(response.status)] as
      | { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> }
      | undefined;
    if (!answer) return fail(`status ${response.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
    documented = answer.headers ?? {};
    if (answer.content) {
      if (!answer.content[contentType]) fail(`content type '${contentType}' is not documented`);
      schemaRef = `${documentId}#/${operationPath}/${pointer('responses', String(response.status), 'content', contentType, 'schema')}`;
    } else if (response.body !== undefined) {
      fail('a body was sent where none is documented');
    }
  }

  const names = new Map(Object.keys(documented).map((k) => [k.toLowerCase(), k]));
  for (const [name, h] of Object.entries(documented)) {
    if (h.required && headers[name.toLowerCase()] === undefined) fail(`required header ${name} is missing`);
  }
  for (const name of Object.keys(headers)) {
    if (!names.has(name) && !transportHeaders.has(name)) fail(`header ${name} is not documented`);
  }
  // HEAD answers with the headers of the GET and no body.
  if (method.toUpperCase() === 'HEAD') {
    if (response.body !== undefined) fail('HEAD answered with a body');
    schemaRef = undefined;
  }
  if (schemaRef) {
    const validate = validator(ajv, schemaRef);
    if (!validate(response.body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
      fail(errors.join('; '));
    }
  }
}
