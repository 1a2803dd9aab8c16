import { CfnOutput } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';

/**
 * Per-API-key limits in the deployed stack: one API Gateway usage plan on the stage. The API takes
 * its API key from the authorizer (`apiKeySource: AUTHORIZER`): the authorizer answers each
 * customer key's usage identifier (`usageIdentifier()` in shared/auth/api-keys.ts, derived from
 * the stored hash), and the operator registers that value as an API Gateway key in this plan
 * (`npm run admin -- create-key ... --usage-plan <id>`, or `register-keys` for existing keys). So
 * every customer key is throttled and metered on its own; the stage throttle bounds the whole API.
 */

export interface KeyLimits {
  /** Steady requests per second per key. */
  rateLimit: number;
  /** Requests per key at once (token bucket size). */
  burstLimit: number;
  /** Requests per key per day. */
  quotaPerDay: number;
}

/** The numbers (docs/reliability.md); change them with the stack's `keyLimits` prop or the cdk context keys below. */
export const defaultKeyLimits: KeyLimits = { rateLimit: 25, burstLimit: 50, quotaPerDay: 100_000 };

/** `cdk deploy -c keyRateLimit=10 -c keyBurstLimit=20 -c keyQuotaPerDay=50000` overrides the defaults. */
export function keyLimitsFromContext(scope: Construct, base: KeyLimits = defaultKeyLimits): KeyLimits {
  const read = (name: string, fallback: number): number => {
    const raw = scope.node.tryGetContext(name) as unknown;
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`context ${name} must be a positive integer, not '${String(raw)}'`);
    return value;
  };
  return {
    rateLimit: read('keyRateLimit', base.rateLimit),
    burstLimit: read('keyBurstLimit', base.burstLimit),
    quotaPerDay: read('keyQuotaPerDay', base.quotaPerDay),
  };
}

/** The usage plan of the API's deployed stage, with its id as a stack output (for the admin CLI). */
export function addUsagePlan(scope: Construct, api: apigateway.RestApi, limits: KeyLimits): apigateway.UsagePlan {
  if (limits.burstLimit < limits.rateLimit) throw new Error('keyBurstLimit must be at least keyRateLimit');
  const plan = api.addUsagePlan('KeyUsagePlan', {
    name: 'registrar-customer-keys',
    description: 'Per customer API key: throttle and daily quota (the authorizer names the key).',
    throttle: { rateLimit: limits.rateLimit, burstLimit: limits.burstLimit },
    quota: { limit: limits.quotaPerDay, period: apigateway.Period.DAY },
    apiStages: [{ api, stage: api.deploymentStage }],
  });
  new CfnOutput(scope, 'UsagePlanId', {
    value: plan.usagePlanId,
    description: 'Usage plan for customer API keys: npm run admin -- create-key ... --usage-plan <this id>.',
  });
  return plan;
}
