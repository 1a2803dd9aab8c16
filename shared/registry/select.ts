import { integrationImplementations, integrationSettings } from '../routes.ts';
import { requiredSetting } from '../settings.ts';
import type { RegistryGateway } from './gateway.ts';
import { sandboxRegistry } from './sandbox.ts';

/**
 * The registry gateway in use, as the stage chose it: `REGISTRY_GATEWAY` (only `sandbox`, the
 * data-driven sandbox registry, exists). Read when the function starts; without it the function
 * refuses to start rather than run the sandbox by default. Imported statically: a dynamic import
 * would be bundled into the same file anyway, and would stop esbuild from tree-shaking everything
 * it reaches (the whole DynamoDB client with every command).
 */
const chosen = requiredSetting(integrationSettings.registry, integrationImplementations);

export async function registryGateway(): Promise<RegistryGateway> {
  if (chosen !== 'sandbox') throw new Error(`No registry gateway '${chosen}'`);
  return sandboxRegistry;
}
