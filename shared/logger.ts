import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Keys whose values never reach a log line (API keys, auth codes, CSRs, approver phone numbers),
 * wherever they appear in a logged object.
 */
const secretKeys = new Set(['authorization', 'apikey', 'authcode', 'csr', 'voice', 'key', 'secret']);

/** The service's structured JSON logger (Powertools). Level from POWERTOOLS_LOG_LEVEL, default INFO. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'registrar',
  jsonReplacerFn: (key: string, value: unknown) => (secretKeys.has(key.toLowerCase()) ? '[redacted]' : value),
});
