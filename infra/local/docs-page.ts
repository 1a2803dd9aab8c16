import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type AppError, MethodNotAllowed, NotFound } from '../../shared/errors.ts';
import { refusal } from './gateway.ts';

/**
 * The API docs page of the local sandbox: Swagger UI (swagger-ui-dist, served from node_modules,
 * no CDN) rendering GET /v2/openapi.json, pre-authorised with the demo key so "Try it out" calls
 * the sandbox at once. The page shows the document without its HEAD operations (one beside every
 * GET: they would double the list; the document keeps them), and "Try it out" sends a fresh
 * Idempotency-Key with every request that changes something, unless one is typed in.
 */

export const docsPath = '/docs';
/** The demo key the page is pre-authorised with (infra/demo-data.json). */
const demoKey = 'demo-key';

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const page = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Registrar API (sandbox)</title>
    <link rel="stylesheet" href="${docsPath}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${docsPath}/favicon-32x32.png" sizes="32x32">
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${docsPath}/swagger-ui-bundle.js"></script>
    <script src="${docsPath}/init.js"></script>
  </body>
</html>
`;

const init = `window.addEventListener('load', function () {
  // A fresh Idempotency-Key (UUID v4) for each "Try it out" request that changes something.
  function uuid() {
    if (window.crypto && typeof window.crypto.randomUUID === 'function') return window.crypto.randomUUID();
    var b = window.crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  fetch('/v2/openapi.json')
    .then(function (response) { return response.json(); })
    .then(function (spec) {
      Object.keys(spec.paths).forEach(function (path) {
        var item = spec.paths[path];
        // HEAD answers beside every GET: the document keeps those operations, the page shows the GETs only.
        delete item.head;
        Object.keys(item).forEach(function (method) {
          (item[method].parameters || []).forEach(function (parameter) {
            // No fixed key prefilled: each request gets its own (below), unless one is typed in.
            if (parameter.in === 'header' && parameter.name === 'Idempotency-Key') {
              delete parameter.example;
              delete parameter.examples;
            }
          });
        });
      });
      var ui = SwaggerUIBundle({
        spec: spec,
        dom_id: '#swagger-ui',
        deepLinking: true,
        displayRequestDuration: true,
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
        requestInterceptor: function (request) {
          var method = String(request.method || 'GET').toUpperCase();
          if (method !== 'GET' && method !== 'HEAD') {
            var headers = request.headers || (request.headers = {});
            var given = Object.keys(headers).some(function (name) { return name.toLowerCase() === 'idempotency-key' && headers[name]; });
            if (!given) headers['Idempotency-Key'] = uuid();
          }
          return request;
        },
        onComplete: function () {
          // The sandbox's demo key: "Try it out" works without typing it (Authorize shows it).
          ui.preauthorizeApiKey('ApiKey', 'ApiKey ${demoKey}');
        },
      });
      window.ui = ui;
    });
});
`;

export interface StaticAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** An error of the service as the local HTTP layer's refusal. */
function refused(error: AppError): StaticAnswer {
  return refusal({ status: error.status, type: error.type, message: error.message, headers: error.headers });
}

/**
 * The page or one of its assets for a GET of a path under /docs; undefined for any other path. Its
 * refusals (another method, an unknown asset) are the API's: contract error bodies with a request id.
 */
export async function docsAnswer(method: string, pathname: string): Promise<StaticAnswer | undefined> {
  if (pathname !== docsPath && !pathname.startsWith(`${docsPath}/`)) return undefined;
  if (method !== 'GET' && method !== 'HEAD') return refused(new MethodNotAllowed(method, ['GET', 'HEAD']));
  const name = pathname.slice(docsPath.length + 1);
  if (name === '' || name === 'index.html') {
    return { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }, body: page };
  }
  if (name === 'init.js')
    return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }, body: init };
  const type = assets[name];
  if (!type) return refused(new NotFound(pathname));
  return {
    status: 200,
    headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' },
    body: await readFile(join(distDir, name)),
  };
}
