import * as v from 'valibot';
import { CertificateInfo, certificateInfoEntries } from '../../shared/certificates/info-view.ts';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { RenewRequest } from './schema.ts';

/** The `?quote=true` answer: the certificate process-info shape plus `command` and `quote` (contract 3.2). */
export const CertificateRenewQuote = v.strictObject({ ...certificateInfoEntries, command: v.literal('CertificateRenew'), quote: Quote });

const dcv = [
  {
    commonName: 'www.demo-shop.nl',
    type: 'DNS',
    status: 'WAITING',
    caaRecordStatus: 'VALID',
    dnsRecord: '_7b525425109d0ae262e30b03169abd19.www.demo-shop.nl',
    dnsType: 'CNAME',
    dnsContents: '7b525425109d0ae262e30b03169abd19.f5beaf726640067475a22ed11495e2ce.py4aqkuzzfgbn259kesn.sectigo.com',
  },
];
const waitForDnsCheck = (message: string) => ({
  message,
  steps: [{ kind: 'WAIT_FOR_DNS_CHECK', commonName: 'www.demo-shop.nl', message }],
});
const info = {
  requiresAttention: false,
  commonName: 'www.demo-shop.nl',
  validations: { dcv },
  notes: [],
  nextAction: waitForDnsCheck(
    'Nothing to do for www.demo-shop.nl: the CNAME record _7b525425109d0ae262e30b03169abd19.www.demo-shop.nl was added to the zone demo-shop.nl and is checked shortly.',
  ),
  csrSummary: {
    commonName: 'www.demo-shop.nl',
    san: ['www.demo-shop.nl'],
    subject: { organization: 'Demo Hosting B.V.', country: 'NL' },
    keyType: 'RSA',
    keySize: 2048,
    signatureAlgorithm: 'sha256WithRSAEncryption',
    sha256: '7b525425109d0ae262e30b03169abd19f5beaf726640067475a22ed11495e2ce',
  },
  mismatches: [],
};

/** POST /v2/ssl/certificates/{certificateId}/renew in the OpenAPI document. */
export const docs: OperationDocs = {
  request: RenewRequest,
  description:
    "Renews a certificate of the caller in its renewal window with a fresh CSR (spec 2.7, 4.2, contract 3.2): opens a certificate process (202, `x-process-id`) whose DCV records go straight into the customer's managed zones. `?quote=true` answers 200 with what the request would produce plus the quote, and writes nothing. Send `Idempotency-Key` to make retries safe.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'With `?quote=true`: the process-info shape the request would produce, with `command` and `quote`.',
      content: {
        'application/json': {
          json: CertificateRenewQuote,
          examples: {
            quote: {
              ...info,
              // A quote writes nothing: its next action says what submitting the renewal will do.
              nextAction: waitForDnsCheck(
                'Nothing to do for www.demo-shop.nl once the renewal is submitted: the CNAME record _7b525425109d0ae262e30b03169abd19.www.demo-shop.nl will then be added to the zone demo-shop.nl and checked.',
              ),
              command: 'CertificateRenew',
              quote: {
                total: 1295,
                currency: 'EUR',
                billables: [
                  {
                    product: 'ssl_sectigo_dv',
                    action: 'RENEW',
                    quantity: 1,
                    amount: 1295,
                    providerName: 'sectigo',
                    refundable: true,
                    total: 1295,
                  },
                ],
              },
            },
          },
        },
      },
    },
    '202': {
      description: 'The renewal process is open: the certificate process-info shape (spec 2.9).',
      headers: [{ name: 'x-process-id', required: true }, { name: 'Idempotent-Replayed' }],
      content: { 'application/json': { json: CertificateInfo, examples: { opened: info } } },
    },
  },
  pathObject: true,
  errors: [
    'ConstraintViolationException',
    'ValidationError',
    'ObjectDoesNotExist',
    'ObjectStatusProhibitsOperation',
    'BillableAcknowledgmentNeededException',
  ],
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description: 'Makes a retry safe: the same key and body within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
      example: 'e0c8a1d4-2b7f-4f3e-8a9c-5d6b7e8f9a0b',
    },
  ],
  examples: {
    path: { certificateId: '1001' },
    query: { quote: 'true' },
    body: {
      dv: {
        summary:
          'Certificate 1001 (www.demo-shop.nl, expires in 25 days): 12 months with a fresh CSR (paste a PEM CSR for www.demo-shop.nl)',
        value: { period: 12, csr: '-----BEGIN CERTIFICATE REQUEST-----\n...\n-----END CERTIFICATE REQUEST-----', uniqueValue: 'Renew1001' },
      },
    },
  },
  components: { CertificateRenewQuote },
};
