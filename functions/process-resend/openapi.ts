import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessView } from '../../shared/processes/process-view.ts';
import { ProcessResendRequest } from './schema.ts';

/** POST /v2/processes/{processId}/resend in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessResendRequest,
  description: [
    'Sends again the e-mail a process of the caller waits on, where its `resumeTypes` include `RESEND`: the FOA e-mail of a `pendingfoa` transfer (the registry sends it), or the DCV e-mails of a certificate request whose EMAIL validations wait for approval (the authority sends them). At most 10 resends per process.',
    'The resend shows on the process: `updatedDate`; a certificate request also gets a note (process info), a transfer a line in its log (transfer info). Anywhere else: 400 ObjectStatusProhibitsOperation. The body may be left out, or be `{}`. Answers the process.',
    "With a `dcv` list (both SDKs' `resendDcv`: `[{commonName, type, email?}]`, `type` EMAIL, DNS or FILE), a certificate request still validating changes the method or the approver address of those names and retries them: their validations wait again with new instructions (process info), an EMAIL one's approval e-mail is sent again. Each name must be one of the request's and not validated yet; `email` is required for EMAIL and must be an approver mailbox of the name (as in a renewal's `dcv`); FILE is not possible for a wildcard name: 400 ValidationError naming each entry. It counts as one of the 10 resends. A change to DNS does not add the record to a zone managed here: the request's own DNS records are added when it is opened with DNS validation.",
  ].join('\n\n'),
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'Resent: the process with the resend recorded.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ProcessView,
          examples: {
            transfer: {
              id: 1002,
              user: 'demo/alice',
              customer: 'demo',
              status: 'RUNNING',
              statusDetail: 'pendingfoa',
              resumeTypes: ['CANCEL', 'RESEND'],
              createdDate: '2026-11-21T21:03:29Z',
              updatedDate: '2026-11-21T22:00:00Z',
              startedDate: '2026-11-21T21:03:29Z',
              type: 'domain',
              action: 'transfer',
              identifier: 'transfer-foa.net',
              billables: [
                {
                  product: 'domain_net',
                  action: 'TRANSFER',
                  quantity: 1,
                  amount: 1099,
                  providerName: 'verisign',
                  refundable: true,
                  total: 1099,
                },
              ],
              command: { domainName: 'transfer-foa.net', customer: 'demo', registrant: 'demo-registrant' },
            },
          },
        },
      },
    },
  },
  pathObject: true,
  optionalBody: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description:
        'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`) and sends nothing again.',
      example: '7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f',
    },
  ],
  examples: {
    path: { processId: '601' },
    body: {
      empty: { summary: 'No fields (the body may also be left out)', value: {} },
      dcv: {
        summary: 'Validate a name by e-mail to another approver address',
        value: { dcv: [{ commonName: 'blog.other-site.com', type: 'EMAIL', email: 'admin@other-site.com' }] },
      },
    },
  },
};
