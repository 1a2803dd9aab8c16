import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { TransferInfo } from '../../shared/transfer/transfer-info-view.ts';
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
            pending: {
              domainName: 'transfer-wait.com',
              status: 'pending',
              requestedDate: '2026-11-21T21:03:29Z',
              actionDate: '2026-11-26T21:03:29Z',
              type: 'IN',
              processId: 1001,
              registrar: 'Example Registrar, Inc.',
              log: [{ date: '2026-11-21T21:03:29Z', status: 'pending', message: 'Pending at the registry.' }],
            },
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
