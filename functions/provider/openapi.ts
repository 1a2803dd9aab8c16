import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { Provider } from '../../shared/registry/provider-view.ts';
import { ProviderRequest } from './schema.ts';

/** GET /v2/providers/{name} (and the same at /v2/providers/REGISTRY/{name}) in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProviderRequest,
  description:
    'A registry and the TLDs it serves. Also answered at `/v2/providers/REGISTRY/{name}`, the path the PHP SDK calls. The name is case-insensitive; configuration, readable by every authenticated caller; an unknown provider answers 404.',
  tags: ['Providers'],
  responses: {
    '200': {
      description: 'The registry.',
      content: { 'application/json': { json: Provider, examples: { nominet: { name: 'nominet', tlds: ['uk', 'co.uk'] } } } },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { name: 'nominet' } },
  components: { Provider },
};
