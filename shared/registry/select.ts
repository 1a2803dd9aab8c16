import { integrationSettings, registryImplementations, rtrSettings } from '../routes.ts';
import { requiredSetting } from '../settings.ts';
import type { RegistryGateway } from './gateway.ts';
import { rtrRegistry } from './rtr.ts';
import type { RtrSettings } from './rtr-client.ts';
import { sandboxRegistry } from './sandbox.ts';

/**
 * The registry gateway in use, as the stage chose it: `REGISTRY_GATEWAY`, `sandbox` (the
 * data-driven sandbox registry) or `rtr` (an upstream Realtime Register account, with its settings
 * `RTR_API_URL`, `RTR_CUSTOMER` and the key `RTR_API_KEY`, read from Secrets Manager when deployed).
 * Read when the function starts; without them the function refuses to start, naming the missing
 * setting, rather than run the sandbox by default. Imported statically: a dynamic import would be
 * bundled into the same file anyway, and would stop esbuild from tree-shaking everything it
 * reaches (the whole DynamoDB client with every command).
 */
const chosen = requiredSetting(integrationSettings.registry, registryImplementations);

/** The upstream account's settings from the environment; throws naming the first one missing or invalid. */
export function rtrSettingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): RtrSettings {
  const setting = (name: string) => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is not set: REGISTRY_GATEWAY=rtr needs it`);
    return value;
  };
  const apiUrl = setting(rtrSettings.apiUrl);
  if (!/^https?:\/\/[^\s/?#]+\/?$/.test(apiUrl)) throw new Error(`${rtrSettings.apiUrl} must be the upstream's base URL (https://host)`);
  const customer = setting(rtrSettings.customer);
  if (!env.RTR_API_KEY_ARN && !env.RTR_API_KEY) {
    throw new Error('RTR_API_KEY is not set: REGISTRY_GATEWAY=rtr needs it (deployed: RTR_API_KEY_ARN, the key in Secrets Manager)');
  }
  const timeoutMs = Number(env[rtrSettings.timeoutMs] ?? 10_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000) {
    throw new Error(`${rtrSettings.timeoutMs} must be whole milliseconds between 100 and 60000`);
  }
  return { apiUrl, customer, timeoutMs };
}

const gateway: RegistryGateway = chosen === 'rtr' ? rtrRegistry(rtrSettingsFromEnvironment()) : sandboxRegistry;

export async function registryGateway(): Promise<RegistryGateway> {
  return gateway;
}
