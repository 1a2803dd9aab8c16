import { integrationSettings, registryImplementations } from '../integrations.ts';
import { requiredSetting } from '../settings.ts';
import type { RegistryGateway } from './gateway.ts';
import { rtrRegistry } from './rtr.ts';
import { rtrSettingsFromEnvironment } from './rtr-settings.ts';
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

const gateway: RegistryGateway = chosen === 'rtr' ? rtrRegistry(rtrSettingsFromEnvironment()) : sandboxRegistry;

export async function registryGateway(): Promise<RegistryGateway> {
  return gateway;
}
