import { integrationSettings, type RegistryImplementation, registryImplementations } from '../integrations.ts';
import { requiredSetting } from '../settings.ts';
import type { RegistryGateway } from './gateway.ts';
import { rtrRegistry } from './rtr.ts';
import { rtrSettingsFromEnvironment } from './rtr-settings.ts';
import { sandboxRegistry } from './sandbox.ts';

/**
 * The one selector of the registry port: the gateway the stage chose (`REGISTRY_GATEWAY`, one of
 * `registryImplementations` in shared/integrations.ts): `sandbox` (the data-driven sandbox
 * registry) or `rtr` (an upstream Realtime Register account, with its settings `RTR_API_URL`,
 * `RTR_CUSTOMER` and the key `RTR_API_KEY`, read from Secrets Manager when deployed). Read when the
 * function starts; without them the function refuses to start, naming the missing setting, rather
 * than run the sandbox by default. Imported statically: a dynamic import would be bundled into the
 * same file anyway, and would stop esbuild from tree-shaking everything it reaches (the whole
 * DynamoDB client with every command).
 */
const chosen = requiredSetting(integrationSettings.registry, registryImplementations);

/** How each adapter is made; one entry per name of `registryImplementations`. */
const adapters: { [name in RegistryImplementation]: () => RegistryGateway } = {
  sandbox: () => sandboxRegistry,
  rtr: () => rtrRegistry(rtrSettingsFromEnvironment()),
};

const gateway: RegistryGateway = adapters[chosen]();

export async function registryGateway(): Promise<RegistryGateway> {
  return gateway;
}
