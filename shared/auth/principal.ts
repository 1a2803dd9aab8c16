import * as v from 'valibot';
import { Permission } from '../schemas/primitives.ts';

/** Who is calling: one user of one customer account, with that user's permissions. */
export const PrincipalSchema = v.object({
  customer: v.string(),
  user: v.string(),
  permissions: v.array(Permission),
});
export type Principal = v.InferOutput<typeof PrincipalSchema>;

/**
 * API Gateway passes an authorizer's context as flat string values; these two functions are the
 * one encoding both the deployed authorizer and the local gateway use.
 */
export function principalToContext(p: Principal): Record<string, string> {
  return { customer: p.customer, user: p.user, permissions: p.permissions.join(',') };
}

/** Reads the principal back from `event.requestContext.authorizer`; undefined when absent or malformed. */
export function principalFromContext(context: unknown): Principal | undefined {
  if (!context || typeof context !== 'object') return undefined;
  const c = context as Record<string, unknown>;
  const permissions = typeof c.permissions === 'string' && c.permissions !== '' ? c.permissions.split(',') : [];
  const parsed = v.safeParse(PrincipalSchema, { customer: c.customer, user: c.user, permissions });
  return parsed.success ? parsed.output : undefined;
}
