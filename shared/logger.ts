import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Keys whose values never reach a log line (API keys, auth codes, CSRs, approver phone numbers),
 * wherever they appear in a logged object.
 */
const secretKeys = new Set(['authorization', 'apikey', 'authcode', 'csr', 'voice', 'key', 'secret']);

/**
 * Whether a field of that name holds a secret (any case). The one list: log lines redact these
 * keys, the pipeline scrubs their values from the logs, and no answer echoes them (contract section 2).
 */
export function isSecretKey(key: string): boolean {
  return secretKeys.has(key.toLowerCase());
}

/**
 * Secret values of recent requests (their API key, auth code, CSR lines, phone numbers), scrubbed
 * from every logged string: an error message can quote a value whose key is not there to redact
 * (found by the log-capture test). Bounded, oldest dropped first; a set, not per request, because
 * the local server runs requests concurrently in one process.
 */
const recentSecrets = new Set<string>();
const recentSecretsLimit = 500;
/** Shorter values are too common to scrub (and too short to be keys, auth codes or CSR lines). */
const minSecretLength = 6;

/** Marks values as secret: from now on they are replaced by `[redacted]` wherever they appear in a log line. */
export function redactValues(values: Iterable<string>): void {
  for (const value of values) {
    if (value.length < minSecretLength) continue;
    recentSecrets.delete(value);
    recentSecrets.add(value);
    if (recentSecrets.size > recentSecretsLimit) recentSecrets.delete(recentSecrets.values().next().value as string);
  }
}

function scrub(value: string): string {
  let out = value;
  for (const secret of recentSecrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

/** The service's structured JSON logger (Powertools). Level from POWERTOOLS_LOG_LEVEL, default INFO. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'registrar',
  jsonReplacerFn: (key: string, value: unknown) => {
    if (isSecretKey(key)) return '[redacted]';
    return typeof value === 'string' && recentSecrets.size > 0 ? scrub(value) : value;
  },
});
