import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { pendingTransferExample, TransferInfo, TransferLogEntry } from '../../shared/transfer/transfer-info-view.ts';
import { TransferInfoRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/transfer/{processId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: TransferInfoRequest,
  description:
    "Where a transfer of the caller stands (spec 2.6): `domainName, status, requestedDate, actionDate` (while waiting), `expiryDate` (once completed), `type, processId`; `registrar`, the registrar the domain leaves as the registry named it; and `log`, every status the transfer went through (`{date, status, message}`, with the registry's reason where it ended without completing, and each FOA e-mail sent again). The process must be a transfer of that domain by the caller; anything else answers 404.",
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'The transfer.',
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
  examples: { path: { domainName: 'transfer-wait.com', processId: '1001' } },
  components: { TransferInfo, TransferLogEntry },
};
