/**
 * The route table: the single source of truth for the API. The CDK stack, the local gateway and
 * the 404/405 fallback are all built from it. It names handler modules by path and imports none,
 * so reading it costs nothing at run time.
 */

export type TableAccess = 'read' | 'readwrite';

/**
 * Secrets the deployed stack generates and hands to the functions that declare them, as an
 * environment variable of the same name (locally, the sandbox default of each applies).
 */
export type StackSecret = 'ONE_TIME_LINK_SECRET';

export interface Route {
  /** Stable id: the function's name in the stack and the route's name in logs. */
  id: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, `{param}` segments. */
  path: string;
  /** Folder under functions/ holding `handler.ts`. */
  dir: string;
  /** What the function may do to the table (least privilege, architecture practice 8); 'none': no access. */
  access: TableAccess | 'none';
  summary: string;
  /** Extra environment variables the deployed function needs (the stack sets TABLE_NAME itself). */
  environment?: Record<string, string>;
  secrets?: readonly StackSecret[];
  /** False for a public route, served without the API-key authorizer (only the API description). */
  auth?: false;
}

export const routes: readonly Route[] = [
  {
    id: 'provider-info',
    method: 'GET',
    path: '/v2/providers/REGISTRY/{name}/info',
    dir: 'provider-info',
    access: 'read',
    summary: 'Registry metadata: extensions, periods, auth-code rules, DNSSEC limits, properties.',
  },
  {
    id: 'pricelist',
    method: 'GET',
    path: '/v2/customers/{customer}/pricelist',
    dir: 'pricelist',
    access: 'read',
    summary: "The caller's price list: current prices, scheduled changes, promos; optionally converted (?currency=EUR|USD).",
  },
  {
    id: 'zone',
    method: 'GET',
    path: '/v2/domains/{domainName}/zone',
    dir: 'zone',
    access: 'read',
    summary: "The DNS zone of a domain in the caller's account, as JSON or (Accept: text/dns) an RFC 1035 zone file.",
  },
  {
    id: 'transfer',
    method: 'POST',
    path: '/v2/domains/{domainName}/transfer',
    dir: 'transfer',
    access: 'readwrite',
    summary: 'Transfer a domain into the account (?quote=true: the quote and plan only); Idempotency-Key supported.',
  },
  {
    id: 'renew',
    method: 'POST',
    path: '/v2/ssl/certificates/{certificateId}/renew',
    dir: 'renew',
    access: 'readwrite',
    secrets: ['ONE_TIME_LINK_SECRET'],
    summary: 'Renew a certificate in its renewal window with a fresh CSR (?quote=true prices it); opens a certificate process.',
  },
  {
    id: 'process-info',
    method: 'GET',
    path: '/v2/processes/{processId}/info',
    dir: 'process-info',
    access: 'read',
    secrets: ['ONE_TIME_LINK_SECRET'],
    summary: 'Context specific info on a process: certificate and acme validations with nextAction, transfer status.',
  },
  {
    id: 'process',
    method: 'GET',
    path: '/v2/processes/{processId}',
    dir: 'process',
    access: 'read',
    summary: 'A process of the caller: status, statusDetail, resumeTypes, billables, command, refund (?fields= limits it).',
  },
  {
    id: 'processes',
    method: 'GET',
    path: '/v2/processes',
    dir: 'processes',
    access: 'read',
    summary:
      "The caller's processes, a page at a time: limit, offset, order, fields, total and filters (field=value, field:matcher=value).",
  },
  {
    id: 'process-cancel',
    method: 'DELETE',
    path: '/v2/processes/{processId}',
    dir: 'process-cancel',
    access: 'readwrite',
    summary: 'Cancel a waiting transfer (at the registry; refunded) or a certificate request still validating; Idempotency-Key supported.',
  },
  {
    id: 'process-resend',
    method: 'POST',
    path: '/v2/processes/{processId}/resend',
    dir: 'process-resend',
    access: 'readwrite',
    summary: "Resend a pendingfoa transfer's FOA e-mail or a certificate request's DCV e-mails; Idempotency-Key supported.",
  },
  {
    id: 'transfer-info',
    method: 'GET',
    path: '/v2/domains/{domainName}/transfer/{processId}',
    dir: 'transfer-info',
    access: 'read',
    summary: 'Where a transfer of the caller stands: status, dates, the losing registrar, and the log of every status it went through.',
  },
  {
    id: 'tld-info',
    method: 'GET',
    path: '/v2/tlds/{tld}/info',
    dir: 'tld-info',
    access: 'read',
    summary: 'The metadata of the registry serving a TLD (longest match), in the shape the SDKs read: applicableFor, provider, metadata.',
  },
  {
    id: 'provider',
    method: 'GET',
    path: '/v2/providers/{name}',
    dir: 'provider',
    access: 'read',
    summary: 'A registry and the TLDs it serves.',
  },
  {
    // The same answer at the path the PHP SDK's providers->get() calls (the spec's REGISTRY segment).
    id: 'provider-by-kind',
    method: 'GET',
    path: '/v2/providers/REGISTRY/{name}',
    dir: 'provider',
    access: 'read',
    summary: 'A registry and the TLDs it serves (the path of the PHP SDK).',
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/v2/openapi.json',
    dir: 'openapi',
    access: 'none',
    auth: false,
    summary: "This API's OpenAPI 3.1 description, generated from the route table and the request and response schemas.",
  },
];

/** Scheduled functions: same shape of entry, a schedule instead of a path. */
export interface Job {
  id: string;
  dir: string;
  access: TableAccess;
  /** EventBridge schedule expression (deployed) ... */
  schedule: string;
  /** ... and the interval at which `npm start` runs it locally. */
  localIntervalSeconds: number;
  summary: string;
  /** Extra environment variables the deployed function needs (the stack sets TABLE_NAME itself). */
  environment?: Record<string, string>;
  secrets?: readonly StackSecret[];
}

export const jobs: readonly Job[] = [
  {
    id: 'transfer-poll',
    dir: 'transfer-poll',
    access: 'readwrite',
    schedule: 'rate(1 minute)',
    localIntervalSeconds: 10,
    summary: "Applies the registry's answers to pending transfers whose actionDate has passed (completes, rejects, fails).",
  },
  {
    id: 'dcv-check',
    dir: 'dcv-check',
    access: 'readwrite',
    schedule: 'rate(5 minutes)',
    localIntervalSeconds: 15,
    summary: 'Checks open certificate requests (DCV records in managed zones, sandbox authority checks) and issues validated certificates.',
  },
  {
    id: 'exchange-rates',
    dir: 'exchange-rates',
    access: 'readwrite',
    // The ECB publishes around 16:00 CET on working days; 16:30 UTC is after that all year round.
    schedule: 'cron(30 16 * * ? *)',
    localIntervalSeconds: 3600,
    summary: "Fetches the ECB's daily euro reference rates and stores them under their date (idempotent).",
    environment: { ECB_RATES_URL: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' },
  },
];

/** The API-key authorizer and the 404/405 fallback: not routes of their own, but functions all the same. */
export const authorizerDir = 'authorizer';
export const fallbackDir = 'fallback';

/** How long API Gateway (and the local gateway) caches an authorizer's answer per key. */
export const authorizerCacheSeconds = 300;

export type RouteMatch =
  | { kind: 'route'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/**
 * Finds the route for a request path (a trailing slash is accepted, contract section 1). A path
 * that exists with other methods answers method-not-allowed.
 */
export function matchRoute(method: string, rawPath: string): RouteMatch {
  const parts = segments(rawPath);
  const allow: string[] = [];
  for (const route of routes) {
    const pattern = segments(route.path);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    for (let i = 0; i < pattern.length; i++) {
      const p = pattern[i] as string;
      const actual = parts[i] as string;
      if (p.startsWith('{') && p.endsWith('}')) {
        let value: string;
        try {
          value = decodeURIComponent(actual);
        } catch {
          value = actual;
        }
        params[p.slice(1, -1)] = value;
      } else if (p !== actual) {
        matched = false;
        break;
      }
    }
    if (!matched) continue;
    if (route.method === method.toUpperCase()) return { kind: 'route', route, pathParameters: params };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
}
