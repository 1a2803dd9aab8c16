import type * as http from 'node:http';

/**
 * Stands in for `node:http` in the Lambda bundles only (see infra/bundling.ts). An ESM `import`
 * of `node:http` makes Node build the builtin's ESM facade, which reads every export, and its
 * lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters load all of undici: about 13-20 ms of every cold start
 * (docs/performance.md). `process.getBuiltinModule` answers the same module without a facade.
 * The named exports are what the bundled code imports statically (esbuild refuses to build a
 * bundle that imports anything else): `STATUS_CODES` (@middy/util) and `request`
 * (shared/notifications/post.ts). The default export is the whole module, which the SDK's HTTP
 * handler reads (`Agent`, `request`) when it first calls an `http:` endpoint (DynamoDB Local).
 * Local runs and tests import the real module.
 */
const nodeHttp: typeof http = /* @__PURE__ */ process.getBuiltinModule('node:http');

export const STATUS_CODES: typeof http.STATUS_CODES = nodeHttp.STATUS_CODES;
export const request: typeof http.request = nodeHttp.request;
export default nodeHttp;
