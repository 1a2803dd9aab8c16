import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { replaceContact } from '../db/repositories/contacts.ts';
import { getProvider } from '../db/repositories/providers.ts';
import { ObjectDoesNotExist, ObjectExists, ObjectStatusProhibitsOperation, ValidationError, type Violation } from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { ProviderRecord } from '../model/provider.ts';
import { now, toWireTime } from '../time.ts';
import type { ContactView } from './contact-view.ts';
import { ownContact, writeAttempts } from './own.ts';
import { mirrorChange } from './upstream.ts';
import { contactViewOf } from './view.ts';

/**
 * A contact's properties for one registry (`POST .../contacts/{handle}/{registry}` adds them,
 * `.../{registry}/update` changes them), checked against the registry's `contactProperties` in its
 * provider metadata: an unknown property, or a value outside the property's list, is a 400 naming
 * `properties.<name>`; a mandatory one left out of an add is a 400 too (unless the contact is
 * meant only as an ADMIN, BILLING or TECH contact).
 */

/** The problems of a registry's properties: unknown names, values outside their list, mandatory ones missing. */
export function propertyViolations(
  provider: ProviderRecord,
  properties: Readonly<Record<string, string>>,
  requireMandatory: boolean,
): Violation[] {
  const definitions = provider.metadata.contactProperties ?? [];
  const violations: Violation[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const definition = definitions.find((d) => d.name === name);
    if (!definition) {
      const known = definitions.map((d) => d.name);
      violations.push({
        field: `properties.${name}`,
        message:
          known.length > 0
            ? `is not a contact property of ${provider.name} (${known.join(', ')})`
            : `${provider.name} takes no contact properties`,
      });
    } else if (definition.values && !(value in definition.values)) {
      violations.push({ field: `properties.${name}`, message: `must be one of ${Object.keys(definition.values).join(', ')}`, value });
    } else if (definition.type === 'Integer' && !/^-?[0-9]{1,15}$/.test(value)) {
      violations.push({ field: `properties.${name}`, message: 'must be an integer', value });
    } else if (definition.type === 'Date' && !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) {
      violations.push({ field: `properties.${name}`, message: 'must be a date yyyy-MM-dd', value });
    }
  }
  if (requireMandatory) {
    for (const d of definitions) {
      if (d.mandatory && properties[d.name] === undefined)
        violations.push({ field: `properties.${d.name}`, message: `is mandatory at ${provider.name}` });
    }
  }
  return violations;
}

/** The registry a path names, as a provider (a 404 for one this service does not know). */
async function registryOf(registry: string): Promise<ProviderRecord> {
  const provider = await getProvider('REGISTRY', registry);
  if (!provider) throw new ObjectDoesNotExist('Registry', registry);
  return provider;
}

async function writeProperties(
  caller: string,
  customer: string,
  handle: string,
  registry: string,
  change: (contact: ContactRecord) => Record<string, string>,
  commitWith: CommitWith<ContactView>,
): Promise<ContactView> {
  for (let attempt = 0; attempt < writeAttempts; attempt++) {
    const { contact, revision } = await ownContact(caller, customer, handle, true);
    const properties = { ...(contact.properties ?? {}), [registry]: change(contact) };
    const registries = [...new Set([...(contact.registries ?? []), registry])].sort();
    const after = await mirrorChange({ ...contact, properties, registries, updatedDate: toWireTime(now()) }, revision);
    const view = contactViewOf(after);
    if ((await replaceContact(contact, after, revision, itemsOf(commitWith(view)))) === 'written') return view;
  }
  throw new ObjectStatusProhibitsOperation(`Contact '${handle}' is being changed by another request; try again.`);
}

/** POST .../contacts/{handle}/{registry}: the contact's first properties for the registry. */
export async function addProperties(
  caller: string,
  customer: string,
  handle: string,
  registry: string,
  body: { properties: Record<string, string>; intendedUsage?: string },
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  await ownContact(caller, customer, handle);
  const provider = await registryOf(registry);
  const mandatory = body.intendedUsage === undefined || body.intendedUsage === 'REGISTRANT';
  const violations = propertyViolations(provider, body.properties, mandatory);
  if (violations.length > 0) throw new ValidationError(`The properties do not fit ${provider.name}.`, violations);
  return writeProperties(
    caller,
    customer,
    handle,
    provider.name,
    (contact) => {
      if (contact.properties?.[provider.name] !== undefined) {
        throw new ObjectExists(
          `Contact '${handle}' has properties for ${provider.name} already: change them with .../${provider.name}/update.`,
        );
      }
      return { ...body.properties };
    },
    commitWith,
  );
}

/** POST .../contacts/{handle}/{registry}/update: changes the properties sent, keeping the others. */
export async function updateProperties(
  caller: string,
  customer: string,
  handle: string,
  registry: string,
  body: { properties: Record<string, string> },
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  await ownContact(caller, customer, handle);
  const provider = await registryOf(registry);
  const violations = propertyViolations(provider, body.properties, false);
  if (violations.length > 0) throw new ValidationError(`The properties do not fit ${provider.name}.`, violations);
  return writeProperties(
    caller,
    customer,
    handle,
    provider.name,
    (contact) => {
      const current = contact.properties?.[provider.name];
      if (current === undefined) {
        throw new ObjectStatusProhibitsOperation(
          `Contact '${handle}' has no properties for ${provider.name} yet: add them with POST .../${provider.name}.`,
        );
      }
      return { ...current, ...body.properties };
    },
    commitWith,
  );
}
