import { DomainCheckView } from '../../shared/domains/check-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DomainCheckRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/check in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainCheckRequest,
  description:
    "Whether a name can be registered (the SDKs' `domains.check`), asked of its registry: `available`, `reason` when it is not (`registered`, `reserved`), `premium`, and for a premium name `currency` and `price` (create price, cents, in the caller's price list currency) and with `renewPrice=true` the renewal price. A name held by any account is not available. The sandbox registry: any name it does not hold is available; `register-reserved.com` is reserved; `register-premium.com` is premium at 1,200.00. Rate limited per API key: at most 100 checks a minute by default (set per stage: `limits.domainChecksPerMinute`), then 429 with `Retry-After`; other keys are not slowed.",
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'The availability.',
      content: {
        'application/json': {
          json: DomainCheckView,
          examples: {
            free: { available: true, premium: false },
            premium: { available: true, premium: true, currency: 'EUR', price: 120000, renewPrice: 120000 },
            reserved: { available: false, reason: 'reserved' },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError', 'TooManyRequests'],
  examples: { path: { domainName: 'register-premium.com' }, query: { renewPrice: 'true' } },
  components: { DomainCheckView },
};
