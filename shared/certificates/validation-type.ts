/**
 * A validation level as the API answers it: a certificate's and a product's `validationType`, the
 * official SDKs' enum (the TS SDK's `ValidationType`, the PHP SDK's `ValidationTypeEnum`, which
 * refuses any other value). The records keep the short level (`DV`, `OV`, `EV`).
 */
export const validationTypeNames = { DV: 'DOMAIN_VALIDATION', OV: 'ORGANIZATION_VALIDATION', EV: 'EXTENDED_VALIDATION' } as const;
