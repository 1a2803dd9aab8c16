import * as v from 'valibot';
import { AcmeInfo, CertificateInfo, DcvValidation, NextAction } from '../../shared/certificates/info-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { TransferResult } from '../../shared/model/transfer.ts';
import { ProcessInfoRequest } from './schema.ts';

/** GET /v2/processes/{processId}/info in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessInfoRequest,
  description:
    "Context specific info on a process of the caller (spec 2.9, contract 3.3). The shape follows the process type: certificate, acme, or a domain transfer's current transfer result. Other types: 400 ValidationError. Another customer's process answers 404.",
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'The process info.',
      content: {
        'application/json': {
          json: v.union([CertificateInfo, AcmeInfo, TransferResult]),
          examples: {
            acme: {
              requiresAttention: true,
              oneTimeLink:
                'https://validation-manager.sandbox.invalid/validate?token=eyJwIjo1MDIsImEiOiJzZWN0aWdvIiwiZSI6MTc5NTM5MjAwMCwibiI6IldpT0FOY1VnblpTb0RJTmZaZEcwc1gifQ.sehuRcu11FF0nhLLSiI4qljrnIsD_vIdn_Xa2zn5gZE',
              validations: { organization: 'VALIDATED', docs: 'VALIDATED', voice: 'VALIDATED', agreement: 'ATTENTION' },
              nextAction: {
                message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
                steps: [
                  {
                    kind: 'OPEN_VALIDATION_MANAGER',
                    message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
                  },
                ],
              },
            },
            transfer: {
              domainName: 'transfer-wait.com',
              status: 'pending',
              requestedDate: '2026-11-21T21:03:29Z',
              actionDate: '2026-11-26T21:03:29Z',
              type: 'IN',
              processId: 1001,
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist'],
  examples: { path: { processId: '502' } },
  components: { CertificateInfo, AcmeInfo, DcvValidation, NextAction },
};
