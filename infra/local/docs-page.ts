import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type AppError, MethodNotAllowed, NotFound } from '../../shared/errors.ts';
import { refusal } from './gateway.ts';

/**
 * The API docs page of the local sandbox: Swagger UI (swagger-ui-dist, served from node_modules,
 * no CDN) rendering GET /v2/openapi.json, pre-authorised with the demo key so "Try it out" calls
 * the sandbox at once.
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
  var ui = SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayRequestDuration: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    onComplete: function () {
      // The sandbox's demo key: "Try it out" works without typing it (Authorize shows it).
      ui.preauthorizeApiKey('ApiKey', 'ApiKey ${demoKey}');
    },
  });
  window.ui = ui;
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
