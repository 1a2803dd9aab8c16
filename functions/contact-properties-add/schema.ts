import * as v from 'valibot';
import { AddPropertiesBody } from '../../shared/contacts/request.ts';
import { Handle, ProviderName } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/{registry}. */
export const ContactPropertiesAddRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle, registry: ProviderName }),
  query: v.object({}),
  body: AddPropertiesBody,
});
