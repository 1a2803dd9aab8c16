import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { routes } from '../shared/routes.ts';

/**
 * The public edge: a WAF web ACL in front of the API stage with two per-IP rate rules, so that
 * anonymous traffic cannot use up the stage's shared throttle (100 requests/s) for every customer:
 * - requests to anything but an authenticated route (the API description, unknown paths and the
 *   404/405 fallback, which need no key) are limited per client IP, tightly;
 * - every request is limited per client IP, well above what one customer's keys need.
 * Over a limit, WAF answers 429 `TooManyRequests` in the contract's shape with `Retry-After`.
 */

export interface EdgeLimits {
  /** Requests per client IP per 5 minutes to the public paths (no key needed). */
  publicPerIp: number;
  /** Requests per client IP per 5 minutes in all. */
  allPerIp: number;
}

/** About one request a second to the public paths; 50 a second in all (two keys at their usage-plan rate). */
export const defaultEdgeLimits: EdgeLimits = { publicPerIp: 300, allPerIp: 15_000 };

/** `cdk deploy -c publicIpRateLimit=600 -c ipRateLimit=30000` overrides the defaults. */
export function edgeLimitsFromContext(scope: Construct, base: EdgeLimits = defaultEdgeLimits): EdgeLimits {
  const read = (name: string, fallback: number): number => {
    const raw = scope.node.tryGetContext(name) as unknown;
    if (raw === undefined) return fallback;
    const value = Number(raw);
    // WAF's rate-based rules take 10 to 2,000,000,000 requests per window.
    if (!Number.isInteger(value) || value < 10) throw new Error(`context ${name} must be an integer of at least 10, not '${String(raw)}'`);
    return value;
  };
  return { publicPerIp: read('publicIpRateLimit', base.publicPerIp), allPerIp: read('ipRateLimit', base.allPerIp) };
}

/**
 * The path of each authenticated route as WAF sees it: optionally behind the stage segment
 * (`/sandbox/v2/...` on the execute-api domain, `/v2/...` behind a custom domain), a trailing
 * slash accepted, each `{param}` one segment.
 */
export function authenticatedPathPatterns(): string[] {
  const paths = [...new Set(routes.filter((r) => r.auth !== false).map((r) => r.path))];
  return paths.map((path) => `^(/[^/]+)?${path.replace(/\{[^/{}]+\}/g, '[^/]+')}/?$`);
}

const window = 300;

/** The contract's 429 body for WAF's answer (WAF has no request id to add). */
const tooManyRequests = JSON.stringify({ type: 'TooManyRequests', message: 'Too many requests from your address; retry later.' });

function rateRule(
  name: string,
  priority: number,
  limit: number,
  scopeDown?: wafv2.CfnWebACL.StatementProperty,
): wafv2.CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    statement: {
      rateBasedStatement: {
        limit,
        aggregateKeyType: 'IP',
        evaluationWindowSec: window,
        ...(scopeDown ? { scopeDownStatement: scopeDown } : {}),
      },
    },
    action: {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: 'TooManyRequests',
          responseHeaders: [{ name: 'Retry-After', value: '60' }],
        },
      },
    },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true },
  };
}

/** The web ACL (regional) with the two per-IP rules, associated with the API's stage. */
export function addWebAcl(scope: Construct, api: apigateway.RestApi, limits: EdgeLimits): wafv2.CfnWebACL {
  const authenticated: wafv2.CfnWebACL.StatementProperty[] = authenticatedPathPatterns().map((regexString) => ({
    regexMatchStatement: { regexString, fieldToMatch: { uriPath: {} }, textTransformations: [{ priority: 0, type: 'NONE' }] },
  }));
  const anyAuthenticated = authenticated.length === 1 ? authenticated[0] : { orStatement: { statements: authenticated } };
  const acl = new wafv2.CfnWebACL(scope, 'EdgeWebAcl', {
    scope: 'REGIONAL',
    description: 'Per-IP rate limits in front of the registrar API, infra/edge.ts',
    defaultAction: { allow: {} },
    customResponseBodies: { TooManyRequests: { contentType: 'APPLICATION_JSON', content: tooManyRequests } },
    rules: [
      rateRule('PublicPathsPerIp', 0, limits.publicPerIp, {
        notStatement: { statement: anyAuthenticated as wafv2.CfnWebACL.StatementProperty },
      }),
      rateRule('AllPathsPerIp', 1, limits.allPerIp),
    ],
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'RegistrarEdge', sampledRequestsEnabled: true },
  });
  new wafv2.CfnWebACLAssociation(scope, 'EdgeWebAclAssociation', {
    resourceArn: api.deploymentStage.stageArn,
    webAclArn: acl.attrArn,
  });
  return acl;
}
