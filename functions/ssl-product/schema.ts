import * as v from 'valibot';
import { type SslProductField, sslProductFields } from '../../shared/certificates/product-fields.ts';
import { parseFields, withProblems } from '../../shared/listing/query.ts';

const Query = v.object({
  fields: v.optional(
    v.pipe(v.array(v.string()), v.description(`The fields to answer (repeated or comma-separated): ${sslProductFields.join(', ')}.`)),
  ),
});

/** GET /v2/ssl/products/{product}[?fields=...]: the product's name (case-insensitive), and the fields to answer. */
export const SslProductRequest = v.object({
  path: v.object({
    product: v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9_]{1,64}$/, 'is not a product name (letters, digits and _, at most 64)')),
  }),
  query: v.pipe(
    Query,
    withProblems<v.InferOutput<typeof Query>, { fields?: SslProductField[] }>((query, problems) => {
      const fields = parseFields(sslProductFields, 'product', query.fields, problems);
      return fields ? { fields } : {};
    }),
  ),
  body: v.undefined(),
});
