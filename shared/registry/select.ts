import type { RegistryGateway } from './gateway.ts';
import { sandboxRegistry } from './sandbox.ts';

/**
 * The registry gateway in use. `REGISTRY_GATEWAY` selects it; `sandbox` (the default, and the only
 * implementation shipped) is the data-driven sandbox registry. Imported statically: a dynamic
 * import would be bundled into the same file anyway, and would stop esbuild from tree-shaking
 * everything it reaches (the whole DynamoDB client with every command).
 */
export async function registryGateway(): Promise<RegistryGateway> {
  const kind = process.env.REGISTRY_GATEWAY || 'sandbox';
  if (kind !== 'sandbox') throw new Error(`Unknown REGISTRY_GATEWAY '${kind}'; the only implementation is 'sandbox'`);
  return sandboxRegistry;
}
