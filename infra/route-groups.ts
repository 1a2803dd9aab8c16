import type { Route } from '../shared/routes.ts';

/**
 * Which CloudFormation stack holds each route's function, permission and methods. CloudFormation
 * takes at most 500 resources a stack, and a route costs about eight (function, role, policy, log
 * group, invoke permission, its methods and its path's 405 answer), so the routes live in nested
 * stacks, one per feature, derived from the route's path: nothing in the route table names a
 * stack, and a new route lands in its feature's stack by its path alone.
 *
 * - The feature of a path is its first segment after `/v2` (`/v2/processes/...`: `processes`), or
 *   for a customer's own things the segment after `/v2/customers/{customer}` (`notifications`,
 *   `webhook`, `contacts`, ...).
 * - `featureStacks` below merges a few features into one stack; any other feature gets a stack of
 *   its own, named after it (`contacts`: `RoutesContacts`).
 * - A stack holds at most `routesPerStack` routes: a larger feature continues in `RoutesDomains2`,
 *   `RoutesDomains3`, ..., in route-table order. A route must not change stacks once deployed (its
 *   method would be created in its new stack before the old one is deleted, which API Gateway
 *   refuses), so a route of a feature that fills more than one stack is added after that feature's
 *   routes in the table, never before them.
 * - The routes deployed before the nested stacks (`methodsInRoot`) keep their methods in the root
 *   stack, where API Gateway has them: only their functions moved (docs: README, "Upgrading to the
 *   nested stacks").
 */

/** Features that share a stack, by feature: the stack's name (without the `Routes` prefix). */
export const featureStacks: Readonly<Record<string, string>> = {
  providers: 'Registries',
  tlds: 'Registries',
  pricelist: 'Pricing',
  exchangerates: 'Pricing',
  domains: 'Domains',
  ssl: 'Certificates',
  processes: 'Processes',
  notifications: 'Notifications',
  webhook: 'Webhooks',
  'openapi.json': 'Description',
};

/** Most routes one nested stack holds (about 8 resources each: well under 400 a stack). */
export const routesPerStack = 40;

/**
 * The routes whose methods were deployed in the root stack before the routes moved to nested
 * stacks. Their methods stay there (updated in place to the moved functions): API Gateway refuses
 * a second method of the same verb on a resource, and CloudFormation creates a moved resource
 * before it deletes the old one. Never add to this list.
 */
export const methodsInRoot: ReadonlySet<string> = new Set([
  'provider-info',
  'pricelist',
  'zone',
  'transfer',
  'renew',
  'process-info',
  'process',
  'processes',
  'process-cancel',
  'process-resend',
  'transfer-info',
  'tld-info',
  'provider',
  'provider-by-kind',
  'openapi',
  'certificate',
  'certificate-download',
  'transfer-latest',
  'providers',
  'ssl-products',
  'ssl-product',
  'exchange-rates-info',
  'exchange-rates-list',
  'notification-poll',
  'notifications',
  'notification',
  'notification-ack',
  'webhook-put',
  'webhook',
  'webhook-delete',
  'webhook-rotate',
  'webhook-dead-letters',
  'webhook-redeliver',
]);

/** The feature a route path belongs to (see above). */
export function featureOf(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments[0] !== 'v2' || segments.length < 2) throw new Error(`Route path ${path} is not under /v2`);
  const first = segments[1] as string;
  if (first === 'customers' && segments.length > 3 && segments[2] === '{customer}') return segments[3] as string;
  return first;
}

/** The stack name of a feature: its entry in featureStacks, or its own name in PascalCase. */
function featureStack(feature: string): string {
  return (
    featureStacks[feature] ??
    feature
      .split(/[^A-Za-z0-9]+/)
      .filter((word) => word !== '')
      .map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`)
      .join('')
  );
}

/** Each route's nested stack, by stack id (`RoutesProcesses`, `RoutesDomains2`, ...), in route-table order. */
export function routeStacks(routes: readonly Route[]): Map<string, Route[]> {
  const byFeature = new Map<string, Route[]>();
  for (const route of routes) {
    const name = featureStack(featureOf(route.path));
    byFeature.set(name, [...(byFeature.get(name) ?? []), route]);
  }
  const stacks = new Map<string, Route[]>();
  for (const [name, members] of byFeature) {
    for (let part = 0; part * routesPerStack < members.length; part++) {
      stacks.set(`Routes${name}${part === 0 ? '' : part + 1}`, members.slice(part * routesPerStack, (part + 1) * routesPerStack));
    }
  }
  return stacks;
}
