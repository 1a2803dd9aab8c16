import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { pendingTransferExample, TransferInfo } from '../../shared/transfer/transfer-info-view.ts';
import { LatestTransferRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/transfer in the OpenAPI document. */
export const docs: OperationDocs = {
  request: LatestTransferRequest,
  description:
    "The caller's latest transfer of the name (the PHP SDK's `transferInfo($domain)` without a process id), in the shape of `GET /v2/domains/{domainName}/transfer/{processId}`: where it stands, the registrar it leaves and its log. A name the caller never transferred answers 404, whoever else did.",
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'The latest transfer of the name.',
      content: {
        'application/json': {
          json: TransferInfo,
          examples: {
            pending: pendingTransferExample,
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { domainName: 'transfer-wait.com' } },
  components: { TransferInfo },
};
