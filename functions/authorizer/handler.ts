import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authenticateKey } from '../../shared/auth/authenticate.ts';
import { principalToContext } from '../../shared/auth/principal.ts';
import { logger } from '../../shared/logger.ts';

/**
 * API Gateway TOKEN authorizer for `Authorization: ApiKey <key>`. Throwing 'Unauthorized' makes
 * API Gateway answer 401 (its gateway response carries the contract's error body). The policy
 * covers the whole stage, so one cached answer serves every route for that key.
 */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const caller = await authenticateKey(event.authorizationToken);
  if (!caller) {
    logger.info('authorizer: refused', { reason: event.authorizationToken ? 'unknown or malformed key' : 'missing key' });
    throw new Error('Unauthorized');
  }
  const { principal } = caller;
  return {
    principalId: `${principal.customer}/${principal.user}`,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageArn(event.methodArn) }],
    },
    context: principalToContext(principal),
    // The API's apiKeySource is AUTHORIZER: this names the key's usage-plan API key, so API Gateway
    // throttles and meters each customer key on its own (infra/usage-plan.ts).
    usageIdentifierKey: caller.usageIdentifier,
  };
}

/** `arn:...:apiId/stage/GET/v2/...` -> `arn:...:apiId/stage/*` */
function stageArn(methodArn: string): string {
  const [prefix, apiId, stage] = methodArn.split('/');
  return `${prefix}/${apiId}/${stage}/*`;
}
