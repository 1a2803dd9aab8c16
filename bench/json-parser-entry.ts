import httpJsonBodyParser from '@middy/http-json-body-parser';

export { handler } from './baseline.ts';

/**
 * The cold-start baseline (bench/baseline.ts: the DynamoDB document client) with
 * @middy/http-json-body-parser beside it, as a function that reads a JSON body holds both: the
 * difference to the baseline is what the parser (and its @middy/util, which loads `node:http` at
 * import) adds to such a function's cold start.
 */
export const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
