import * as v from 'valibot';
import { productFields } from '../model/certificate.ts';
import { validationTypeNames } from './validation-type.ts';

/**
 * An SSL product as `GET /v2/ssl/products[/{product}]` answers it (the SDKs' SslProduct and
 * Product models), as a schema: the OpenAPI document and the answer checks use it, the use case
 * takes its type.
 */
export const SslProduct = v.strictObject({
  product: v.string(),
  brand: v.pipe(v.string(), v.description("The certificate authority's brand.")),
  name: v.string(),
  validationType: v.picklist(Object.values(validationTypeNames)),
  certificateType: v.picklist(['SINGLE_DOMAIN', 'MULTI_DOMAIN', 'WILDCARD']),
  features: v.pipe(
    v.array(v.picklist(['WILDCARD', 'WWW_INCLUDED', 'NON_WWW_INCLUDED'])),
    v.description(
      '`WILDCARD`: wildcard names may be certified; `WWW_INCLUDED`/`NON_WWW_INCLUDED`: the www (non-www) counterpart of the common name comes free.',
    ),
  ),
  periods: v.pipe(v.array(v.number()), v.description('Validity periods offered, in months.')),
  warranty: v.optional(v.pipe(v.number(), v.description('In US dollars.'))),
  issueTime: v.optional(v.string()),
  renewalWindow: v.pipe(v.number(), v.description('Days before expiry from which a certificate of the product may be renewed.')),
  includedDomains: v.number(),
  maxDomains: v.number(),
  requiredFields: v.array(v.picklist(productFields)),
  optionalFields: v.array(v.picklist(productFields)),
});
export type SslProduct = v.InferOutput<typeof SslProduct>;

/** GET /v2/ssl/products/{product}?fields=...: only the fields asked for (every field without `fields`). */
export const SslProductSelection = v.pipe(
  v.partial(SslProduct),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);
