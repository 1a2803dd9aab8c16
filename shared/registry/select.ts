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

/**
 * A gateway is in a Lambda bundle only when the stage runs it: `process.env.BUNDLED_REGISTRY_GATEWAY`
 * is replaced by the stage's choice when the function is bundled (infra/bundling.ts), so the other
 * entry below folds to `notBundled`, and its adapter goes with it. Local runs and tests define
 * nothing and have both. The comparison stays written out in each entry: esbuild folds it only there.
 */
function notBundled(implementation: string): never {
  throw new Error(
    `${integrationSettings.registry} is '${implementation}', but this function was bundled for a stage running '${process.env.BUNDLED_REGISTRY_GATEWAY}': it carries no gateway for it`,
  );
}

/** How each adapter is made; one entry per name of `registryImplementations`. */
const adapters: { [name in RegistryImplementation]: () => RegistryGateway } = {
  sandbox: () =>
    process.env.BUNDLED_REGISTRY_GATEWAY === undefined || process.env.BUNDLED_REGISTRY_GATEWAY === 'sandbox'
      ? sandboxRegistry
      : notBundled('sandbox'),
  rtr: () =>
    process.env.BUNDLED_REGISTRY_GATEWAY === undefined || process.env.BUNDLED_REGISTRY_GATEWAY === 'rtr'
      ? rtrRegistry(rtrSettingsFromEnvironment())
      : notBundled('rtr'),
};

const gateway: RegistryGateway = adapters[chosen]();

export async function registryGateway(): Promise<RegistryGateway> {
  return gateway;
}
