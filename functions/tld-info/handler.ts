import { endpoint } from '../../shared/http/pipeline.ts';
import { tldInfo } from '../../shared/registry/tld-info.ts';
import { TldInfoRequest } from './schema.ts';

/** GET /v2/tlds/{tld}/info: the metadata of the registry serving the TLD. */
export const handler = endpoint({ route: 'tld-info', request: TldInfoRequest }, ({ input }) => tldInfo(input.path.tld));
