import {
  getCertificateAuthorities,
  getCertificateAuthority,
  getCertificateProduct,
  listCertificateProducts,
} from '../db/repositories/certificates.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { CertificateAuthority, CertificateProduct } from '../model/certificate.ts';
import { type CataloguePage, type CatalogueQuery, catalogueSlice } from '../schemas/listing.ts';
import type { SslProductField } from './product-fields.ts';
import type { SslProduct } from './product-view.ts';
import { validationTypeNames } from './validation-type.ts';

/**
 * The SSL product catalogue as the SDKs read it (`GET /v2/ssl/products`, `GET
 * /v2/ssl/products/{product}`): configuration, the same for every authenticated caller. Read
 * from the table, not from the renewals' cache, so a product loaded a moment ago is listed.
 */

/** A product in the SDKs' shape, its brand the authority's name as it presents itself. */
function productView(product: CertificateProduct, authority: CertificateAuthority | undefined): SslProduct {
  // A single-domain product certifies the www (non-www) counterpart of its common name for free (shared/certificates/renewal-rules.ts).
  const free = product.certificateType === 'SINGLE_DOMAIN' && !product.wildcard;
  return {
    product: product.product,
    brand: authority?.displayName ?? product.authority,
    name: product.name,
    validationType: validationTypeNames[product.validationType],
    certificateType: product.wildcard && product.certificateType === 'SINGLE_DOMAIN' ? 'WILDCARD' : product.certificateType,
    features: [...(product.wildcard ? (['WILDCARD'] as const) : []), ...(free ? (['WWW_INCLUDED', 'NON_WWW_INCLUDED'] as const) : [])],
    periods: product.periods,
    ...(product.warranty !== undefined ? { warranty: product.warranty } : {}),
    ...(product.issueTime !== undefined ? { issueTime: product.issueTime } : {}),
    renewalWindow: product.renewalWindowDays,
    includedDomains: product.includedDomains,
    maxDomains: product.maxDomains,
    requiredFields: product.requiredFields,
    optionalFields: product.optionalFields,
  };
}

/**
 * One product by name, with `fields` only those fields (as the other reads do); unknown: 404
 * ObjectDoesNotExist. Two GetItems (the product, its authority).
 */
export async function sslProduct(name: string, fields?: readonly SslProductField[]): Promise<Partial<SslProduct>> {
  const product = await getCertificateProduct(name);
  if (!product) throw new ObjectDoesNotExist('Product', name);
  const view = productView(product, await getCertificateAuthority(product.authority));
  if (!fields || fields.length === 0) return view;
  return Object.fromEntries(fields.filter((f) => view[f] !== undefined).map((f) => [f, view[f]]));
}

/** A page of the catalogue, by product name; `q` searches product names, names and brands. One Query, one BatchGet of the authorities. */
export async function listSslProducts(query: CatalogueQuery): Promise<CataloguePage<SslProduct>> {
  const products = await listCertificateProducts();
  const authorities = await getCertificateAuthorities([...new Set(products.map((p) => p.authority))]);
  return catalogueSlice(
    products.map((p) => productView(p, authorities.get(p.authority))),
    query,
    (p) => p.product,
    (p) => [p.product, p.name, p.brand],
  );
}
