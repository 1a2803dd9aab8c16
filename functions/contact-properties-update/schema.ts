import * as v from 'valibot';
import { UpdatePropertiesBody } from '../../shared/contacts/request.ts';
import { Handle, ProviderName } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/{registry}/update. */
export const ContactPropertiesUpdateRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle, registry: ProviderName }),
  query: v.object({}),
  body: UpdatePropertiesBody,
});
