import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { TldMetadata } from '../../shared/model/provider.ts';
import { TldInfo, TldInfoMetadata } from '../../shared/registry/tld-info-view.ts';
import { TldInfoRequest } from './schema.ts';

/** GET /v2/tlds/{tld}/info in the OpenAPI document. */
export const docs: OperationDocs = {
  request: TldInfoRequest,
  description:
    "The metadata of the registry that serves a TLD, found by the longest-match rule a transfer uses (`co.uk` has its own entry; `org.uk` is answered by `uk`'s registry), in the shape the SDKs' TLD info models read: `applicableFor` (the extensions it applies to), `provider`, `metadata` (periods, auth-code rules, grace periods, contact and name-server limits, privacy facts), and `hash`, which changes exactly when the metadata does. Configuration: every authenticated caller may read it. A TLD no registry serves: 404.",
  tags: ['Providers'],
  responses: {
    '200': {
      description: 'The TLD metadata.',
      content: { 'application/json': { json: TldInfo } },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { tld: 'nl' } },
  components: { TldInfo, TldInfoMetadata, TldMetadata },
};
