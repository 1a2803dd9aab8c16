import type { SslProduct } from './product-view.ts';

/** The fields of a product, in the order it answers them (`fields` names some of them). */
export const sslProductFields = [
  'product',
  'brand',
  'name',
  'validationType',
  'certificateType',
  'features',
  'periods',
  'warranty',
  'issueTime',
  'renewalWindow',
  'includedDomains',
  'maxDomains',
  'requiredFields',
  'optionalFields',
] as const satisfies readonly (keyof SslProduct)[];
export type SslProductField = (typeof sslProductFields)[number];
