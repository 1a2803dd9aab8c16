import secureJson from 'secure-json-parse';
import { InvalidMessage, PayloadTooLarge } from '../errors.ts';
import { jsonDepthExceeds } from './json-depth.ts';
import { parseJsonText } from './json-text.ts';
import { type JsonBody, maxBodyBytes, maxBodyDepth, state } from './pipeline.ts';

/**
 * Reading a JSON request body, for the routes that take one (`endpoint({ ..., body: jsonBody })`),
 * so GET bundles carry none of it. The body is parsed with `JSON.parse` (through parseJsonText,
 * which keeps V8's escaped-key bug away: shared/http/json-text.ts) and then scanned for
 * prototype-pollution keys (`__proto__`, `constructor.prototype`) by `secure-json-parse` (fastify).
 * Not @middy/http-json-body-parser: it does the same, but its @middy/util loads `node:http` at
 * import, about 11 ms of every cold start of a POST function (the SDK needs only `node:https`).
 */

/**
 * Content type, size, emptiness and nesting depth, then the body as JSON with prototype keys
 * refused anywhere in it (`__proto__`, `constructor.prototype`): 415, 413 or 400 InvalidMessage.
 * A base64 body is decoded once, for the depth check and the parser alike.
 */
function readJsonBody(optional: boolean): JsonBody {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (optional && (body === null || body === undefined || body === '')) {
        (request.event as { body: unknown }).body = {};
        return;
      }
      const contentType = state(request).headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(contentType)) {
        throw new InvalidMessage('Content-Type must be application/json.', 415);
      }
      if (body && Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8') > maxBodyBytes) {
        throw new PayloadTooLarge(maxBodyBytes);
      }
      if (body === null || body === undefined || body.trim() === '') {
        throw new InvalidMessage('The request body must be a JSON object.');
      }
      const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      // Deep nesting would exhaust the stack of the recursive steps that follow (found by fuzzing).
      if (jsonDepthExceeds(text, maxBodyDepth)) {
        throw new InvalidMessage(`The request body nests arrays and objects more than ${maxBodyDepth} levels deep.`);
      }
      let parsed: unknown;
      try {
        parsed = parseJsonText(text);
      } catch {
        throw new InvalidMessage('Invalid or malformed JSON was provided.');
      }
      if (parsed !== null && typeof parsed === 'object') {
        try {
          secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' });
        } catch {
          throw new InvalidMessage('Forbidden key in JSON body.');
        }
      }
      (request.event as { body: unknown }).body = parsed;
    },
  };
}

/** The JSON body step of the routes that take a body. */
export const jsonBody: JsonBody = readJsonBody(false);

/**
 * The JSON body step of a route whose body may be left out (resend: the TS SDK sends `{}`, the PHP
 * SDK nothing): no body reads as `{}`; a body is read as on every route.
 */
export const optionalJsonBody: JsonBody = readJsonBody(true);
