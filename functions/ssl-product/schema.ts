import * as v from 'valibot';

/** GET /v2/ssl/products/{product}: the product's name (case-insensitive), nothing else. */
export const SslProductRequest = v.object({
  path: v.object({
    product: v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9_]{1,64}$/, 'is not a product name (letters, digits and _, at most 64)')),
  }),
  query: v.object({}),
  body: v.undefined(),
});
