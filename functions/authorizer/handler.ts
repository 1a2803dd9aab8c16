import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authenticate } from '../../shared/auth/authenticate.ts';
import { principalToContext } from '../../shared/auth/principal.ts';
import { logger } from '../../shared/logger.ts';

/**
 * API Gateway TOKEN authorizer for `Authorization: ApiKey <key>`. Throwing 'Unauthorized' makes
 * API Gateway answer 401 (its gateway response carries the contract's error body). The policy
 * covers the whole stage, so one cached answer serves every route for that key.
 */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const principal = await authenticate(event.authorizationToken);
  if (!principal) {
    logger.info('authorizer: refused', { reason: event.authorizationToken ? 'unknown or malformed key' : 'missing key' });
    throw new Error('Unauthorized');
  }
  return {
    principalId: `${principal.customer}/${principal.user}`,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageArn(event.methodArn) }],
    },
    context: principalToContext(principal),
  };
}

/** `arn:...:apiId/stage/GET/v2/...` -> `arn:...:apiId/stage/*` */
function stageArn(methodArn: string): string {
  const [prefix, apiId, stage] = methodArn.split('/');
  return `${prefix}/${apiId}/${stage}/*`;
}
