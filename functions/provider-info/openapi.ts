import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { LaunchPhase, PropertyDefinition, ProviderMetadata } from '../../shared/model/provider.ts';
import { ProviderInfo } from '../../shared/registry/provider-info-view.ts';
import { ProviderInfoRequest } from './schema.ts';

/** GET /v2/providers/REGISTRY/{name}/info in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProviderInfoRequest,
  description:
    'Metadata of a registry (spec 2.10, contract 3.4): extensions, periods, auth-code rules, DNSSEC limits, contact and certificate properties, launch phases. Configuration: every authenticated caller may read it.',
  tags: ['Providers'],
  responses: {
    '200': {
      description: 'The registry and its metadata.',
      content: {
        'application/json': {
          json: ProviderInfo,
          examples: {
            sidn: {
              name: 'sidn',
              metadata: {
                possibleDomainExtensions: ['nl'],
                createDomainPeriods: [3, 12],
                renewDomainPeriods: [3, 12],
                transferDomainPeriods: [12],
                adjustableAuthCode: false,
                transferSupportsAuthcode: true,
                transferRequiresAuthcode: true,
                possibleClientDomainStatuses: ['CLIENT_DELETE_PROHIBITED', 'CLIENT_UPDATE_PROHIBITED', 'CLIENT_TRANSFER_PROHIBITED'],
                explicitRenewSupported: false,
                allowedDnssecRecords: 4,
                allowedDnssecAlgorithms: [8, 10, 13, 14, 15, 16],
                contactProperties: [
                  {
                    name: 'legalForm',
                    label: 'Legal form',
                    description: 'The legal form of the registrant, as SIDN registers it.',
                    type: 'String',
                    mandatory: true,
                    values: {
                      PERSOON: 'Natural person',
                      BV: 'Private limited company (besloten vennootschap)',
                      NV: 'Public limited company (naamloze vennootschap)',
                      EENMANSZAAK: 'Sole proprietorship',
                      VOF: 'General partnership (vennootschap onder firma)',
                      CV: 'Limited partnership (commanditaire vennootschap)',
                      STICHTING: 'Foundation',
                      VERENIGING: 'Association',
                      COOPERATIE: 'Cooperative',
                      BUITENLANDSE_EG_VENNOOTSCHAP: 'Company established in another EU member state',
                      ANDERS: 'Other legal form',
                    },
                  },
                  {
                    name: 'legalFormRegNo',
                    label: 'Registration number',
                    description: 'Chamber of Commerce (KvK) number of the registrant, for legal forms that have one.',
                    type: 'String',
                    mandatory: false,
                  },
                ],
                certificateProperties: [],
                launchPhases: [],
              },
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { name: 'sidn' } },
  components: { ProviderInfo, ProviderMetadata, PropertyDefinition, LaunchPhase },
};
