import * as v from 'valibot';
import {
  type Filter,
  filterParameter,
  generalParameters,
  type ListQuery,
  type ListSpec,
  parseListQuery,
  withProblems,
} from '../listing/query.ts';
import type { CertificateView } from './certificate-view.ts';
import { validationTypeNames } from './validation-type.ts';

/**
 * The query of `GET /v2/ssl/certificates` (the generic listing of shared/listing/query.ts,
 * described for certificates): the filters the TypeScript SDK's `SSLListParams` offers that the
 * service's certificates carry.
 */

const text = ['eq', 'ne', 'in', 'like'] as const;
const optionalText = [...text, 'null', 'not_null'] as const;
const closed = ['eq', 'ne', 'in'] as const;
const date = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;

/** Fields that can be filtered on, and the matchers each one takes (`eq` is `field=value`). */
export const filterMatchers = {
  id: closed,
  domainName: text,
  /** Any of the certificate's names (`san=www.example.com`, `san:like=*.example.com`). */
  san: text,
  product: text,
  validationType: closed,
  certificateType: closed,
  status: closed,
  organization: optionalText,
  publicKeyAlgorithm: [...closed, 'null', 'not_null'],
  serialNumber: text,
  startDate: date,
  expiryDate: date,
  subscriptionEndDate: [...date, 'null', 'not_null'],
} as const;
export type FilterField = keyof typeof filterMatchers;

export type CertificateField = keyof CertificateView;

/** Every field of a listed certificate (what `fields` may name): those of `GET /v2/ssl/certificates/{id}`. */
export const certificateFields: readonly CertificateField[] = [
  'id',
  'process',
  'product',
  'validationType',
  'certificateType',
  'domainName',
  'organization',
  'startDate',
  'expiryDate',
  'subscriptionEndDate',
  'san',
  'status',
  'publicKeyAlgorithm',
  'publicKeySize',
  'serialNumber',
  'csr',
  'certificate',
  'fingerprint',
  'renewedBy',
];

/** The certificate listing as the generic listing describes it. */
export const certificateListSpec: ListSpec<FilterField, CertificateField> = {
  noun: 'certificates',
  filters: filterMatchers,
  closedValues: {
    validationType: Object.values(validationTypeNames),
    certificateType: ['SINGLE_DOMAIN', 'MULTI_DOMAIN'],
    status: ['ACTIVE', 'EXPIRED', 'REVOKED', 'SUSPENDED'],
    publicKeyAlgorithm: ['RSA', 'ECDSA'],
  },
  dates: ['startDate', 'expiryDate', 'subscriptionEndDate'],
  fields: certificateFields,
  identifying: ['id', 'domainName', 'product', 'status', 'expiryDate'],
  orders: ['id'],
  defaultOrder: '-id',
  search: ['domainName', 'san', 'product', 'organization', 'serialNumber'],
};

export type CertificateFilter = Filter<FilterField>;
/** The listing a caller asked for. */
export type CertificateQuery = ListQuery<FilterField, CertificateField>;

const ListParameters = v.objectWithRest(
  {
    ...generalParameters(certificateListSpec),
    domainName: filterParameter('domainName', 'www.demo-shop.nl'),
    san: filterParameter('san', 'demo-shop.nl'),
    product: filterParameter('product', 'ssl_sectigo_dv'),
    status: filterParameter('status', 'ACTIVE'),
    expiryDate: filterParameter('expiryDate', '2026-12-20'),
  },
  v.array(v.string()),
);

/** The query of `GET /v2/ssl/certificates`, parsed into a CertificateQuery. */
export const CertificateListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, CertificateQuery>((query, problems) =>
    parseListQuery(certificateListSpec, query, problems),
  ),
);
