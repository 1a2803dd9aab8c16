import { rtrSettings } from '../integrations.ts';
import type { RtrSettings } from './rtr-client.ts';

/**
 * The settings of the upstream Realtime Register account (`REGISTRY_GATEWAY=rtr`), read from the
 * environment: a function reads them when it starts (shared/registry/select.ts), `npm start`
 * before it starts anything. A missing or malformed one stops the start with its name.
 */

/**
 * The upstream's base URL as users write it: `https://api.yoursrs.com`, or with the API's `/v2`
 * (the form the TS SDK's `baseURL` takes), with or without a trailing slash; answered as the origin
 * the client's `/v2/...` paths go under. Anything else (another path, a query, credentials): undefined.
 */
export function upstreamBaseUrl(text: string): string | undefined {
  const match = /^(https?:\/\/[^\s/?#@]+)(?:\/v2)?\/?$/i.exec(text.trim());
  return match ? (match[1] as string) : undefined;
}

/** The upstream account's settings from the environment; throws naming the first one missing or invalid. */
export function rtrSettingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): RtrSettings {
  const setting = (name: string) => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is not set: REGISTRY_GATEWAY=rtr needs it`);
    return value;
  };
  const apiUrl = upstreamBaseUrl(setting(rtrSettings.apiUrl));
  if (!apiUrl) {
    throw new Error(
      `${rtrSettings.apiUrl} must be the upstream's base URL: https://host or https://host/v2 (the form the TS SDK's baseURL takes), with or without a trailing slash`,
    );
  }
  const customer = setting(rtrSettings.customer);
  const registries = setting(rtrSettings.registries)
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (registries.length === 0 || registries.some((name) => !/^[a-z0-9][a-z0-9\-_.]{0,62}$/.test(name))) {
    throw new Error(`${rtrSettings.registries} must list registry names, comma-separated (sidn,verisign)`);
  }
  if (!env.RTR_API_KEY_ARN && !env.RTR_API_KEY) {
    throw new Error('RTR_API_KEY is not set: REGISTRY_GATEWAY=rtr needs it (deployed: RTR_API_KEY_ARN, the key in Secrets Manager)');
  }
  const timeoutMs = Number(env[rtrSettings.timeoutMs] ?? 10_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000) {
    throw new Error(`${rtrSettings.timeoutMs} must be whole milliseconds between 100 and 60000`);
  }
  return { apiUrl, customer, registries, timeoutMs };
}
