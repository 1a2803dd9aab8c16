import httpJsonBodyParser from '@middy/http-json-body-parser';
import secureJson from 'secure-json-parse';
import { InvalidMessage, PayloadTooLarge } from '../errors.ts';
import { jsonDepthExceeds } from './json-depth.ts';
import { duplicateKey } from './json-keys.ts';
import { plainKeys, restoreKeys } from './json-text.ts';
import { type JsonBody, maxBodyBytes, maxBodyDepth, state } from './pipeline.ts';

/**
 * Reading a JSON request body, for the routes that take one (`endpoint({ ..., body: jsonBody })`),
 * so GET bundles carry none of it. The body is parsed by @middy/http-json-body-parser (JSON.parse
 * with a reviver that refuses `__proto__` and `constructor.prototype`), with the house's guards
 * around it:
 * - before: the content type (`application/json` only), the size, emptiness and nesting depth, a
 *   base64 body decoded once, and V8's escaped-key bug kept away (shared/http/json-text.ts): a
 *   text whose keys hold a backslash reaches the parser with plain placeholder keys;
 * - after: the keys put back, then a body with a key given twice in one object refused
 *   (shared/http/json-keys.ts), and prototype keys refused anywhere by `secure-json-parse`
 *   (fastify), which also sees the keys the placeholders hid from the parser's reviver.
 * The parser's own errors (HTTP errors of @middy/util) become the contract's InvalidMessage.
 * Its import cost (@middy/util loads `node:http`) is measured by the bench (docs/performance.md).
 */

const parser = httpJsonBodyParser({ disableContentTypeCheck: true });

/** What the parser's refusal of a prototype key says (an HttpError 422 of @middy/util). */
const forbiddenKey = /^Forbidden key in JSON body/;

/** Runs the parser on the event's (plain-keyed) text, its refusals as InvalidMessage. */
function parse(request: Parameters<NonNullable<JsonBody['before']>>[0]): void {
  try {
    // The parser's `before` is synchronous: it parses `event.body` in place or throws.
    void parser.before?.(request as never);
  } catch (error) {
    if (forbiddenKey.test((error as Error).message)) throw new InvalidMessage('Forbidden key in JSON body.');
    throw new InvalidMessage('Invalid or malformed JSON was provided.');
  }
}

/**
 * Content type, size, emptiness and nesting depth, then the body as JSON with duplicate keys and
 * prototype keys refused anywhere in it: 415, 413 or 400 InvalidMessage.
 */
function readJsonBody(optional: boolean): JsonBody {
  return {
    before: (request) => {
      const event = request.event as { body: unknown; isBase64Encoded: boolean };
      const { body, isBase64Encoded } = request.event;
      if (optional && (body === null || body === undefined || body === '')) {
        event.body = {};
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
      let plain: ReturnType<typeof plainKeys>;
      try {
        plain = plainKeys(text);
      } catch {
        throw new InvalidMessage('Invalid or malformed JSON was provided.');
      }
      event.body = plain.text;
      event.isBase64Encoded = false;
      parse(request);
      const parsed = plain.names ? restoreKeys(event.body, plain.names) : event.body;
      const twice = parsed !== null && typeof parsed === 'object' ? duplicateKey(text) : undefined;
      if (twice !== undefined) {
        const shown = twice.length > 64 ? `${twice.slice(0, 64)}...` : twice;
        throw new InvalidMessage(`The request body gives the key ${JSON.stringify(shown)} more than once in one object.`);
      }
      if (parsed !== null && typeof parsed === 'object') {
        try {
          secureJson.scan(parsed, { protoAction: 'error', constructorAction: 'error' });
        } catch {
          throw new InvalidMessage('Forbidden key in JSON body.');
        }
      }
      event.body = parsed;
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
