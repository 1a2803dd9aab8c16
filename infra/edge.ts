import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { apiKeyHeaderPattern } from '../shared/auth/api-keys.ts';

/**
 * The public edge: a WAF web ACL in front of the API stage with two per-IP rate rules, so that
 * traffic without a key cannot use up the stage's shared throttle for every customer:
 * - requests that present no API key (no `Authorization: ApiKey <key>` header of the key's form,
 *   whatever their method or path: the API description, unknown paths and methods, and any
 *   authenticated path called without a key) are limited per client IP, tightly;
 * - every request is limited per client IP, well above what one customer's keys need, and low
 *   enough that no few addresses can take the whole stage throttle (checkEdgeLimits).
 * Over a limit, WAF answers 429 `TooManyRequests` in the contract's shape with `Retry-After`.
 * A malformed key counts as none; a well-formed key that is not valid is refused by the
 * authorizer (401), within the per-IP limit of keyed requests.
 */

/** WAF's evaluation window (s). */
const window = 300;

export interface EdgeLimits {
  /** Requests per client IP per 5 minutes that present no API key. */
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

/** How many client addresses at their per-IP limit it takes, at least, to fill the stage throttle. */
export const minAddressesToFillStage = 10;

/** Throws unless it takes at least minAddressesToFillStage addresses at the per-IP limit to take the stage's whole throttle. */
export function checkEdgeLimits(limits: EdgeLimits, stageRatePerSecond: number): EdgeLimits {
  const perIpPerSecond = limits.allPerIp / window;
  if (perIpPerSecond * minAddressesToFillStage > stageRatePerSecond) {
    throw new Error(
      `ipRateLimit ${limits.allPerIp} per ${window} s lets ${Math.ceil(stageRatePerSecond / perIpPerSecond)} addresses take the stage throttle of ${stageRatePerSecond} requests/s; it must take at least ${minAddressesToFillStage}`,
    );
  }
  return limits;
}

/** A request that presents an API key: an `Authorization` header of the key's form (the authorizer's own pattern). */
export function keyPresented(): wafv2.CfnWebACL.StatementProperty {
  return {
    regexMatchStatement: {
      regexString: apiKeyHeaderPattern.source,
      fieldToMatch: { singleHeader: { Name: 'authorization' } },
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
}

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
  const acl = new wafv2.CfnWebACL(scope, 'EdgeWebAcl', {
    scope: 'REGIONAL',
    description: 'Per-IP rate limits in front of the registrar API, infra/edge.ts',
    defaultAction: { allow: {} },
    customResponseBodies: { TooManyRequests: { contentType: 'APPLICATION_JSON', content: tooManyRequests } },
    rules: [
      rateRule('NoKeyPerIp', 0, limits.publicPerIp, { notStatement: { statement: keyPresented() } }),
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
