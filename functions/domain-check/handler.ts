import { checkDomain } from '../../shared/domains/check.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { DomainCheckRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/check: whether the name can be registered, and its premium prices. */
export const handler = endpoint({ route: 'domain-check', request: DomainCheckRequest }, ({ input, principal }) =>
  checkDomain(principal, input.path.domainName, {
    ...(input.query.languageCode !== undefined ? { languageCode: input.query.languageCode } : {}),
    ...(input.query.renewPrice !== undefined ? { renewPrice: input.query.renewPrice } : {}),
  }),
);
