import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { renewCertificate } from './renew.ts';
import { RenewRequest } from './schema.ts';

export const handler = endpoint({ route: 'renew', request: RenewRequest, body: jsonBody }, ({ input, principal, headers }) =>
  renewCertificate(input, principal, headers),
);
