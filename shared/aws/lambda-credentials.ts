import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (see
 * infra/bundling.ts): Lambda hands a function its role's credentials in environment variables,
 * the first source the SDK's default chain tries, so the rest of that chain (SSO, INI files,
 * process, web identity, IMDS, and the STS/SSO clients they bundle) is dead weight at cold start.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
