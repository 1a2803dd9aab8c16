import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { deployedStacks } from '../../infra/headroom.ts';

/**
 * The stack tests read every stack that is deployed, not only the root: the routes' functions,
 * permissions and methods are in nested stacks (infra/route-groups.ts). `deployedTemplate(root)`
 * is one template of the resources of the root stack and of all its nested stacks, each
 * cross-stack value written as the value itself: a nested stack's parameter as what its parent
 * passes in (the table's `{Ref: TableXXXX}`), and a parent's `Fn::GetAtt` of a nested stack's
 * output as that output's value (a function's `{Ref: fnXXXX}`). So a test asserts on the deployed
 * resources as if they were one stack, and a logical id from `stack.getLogicalId(...)` of any of
 * them is found in it. The nested stacks' own resources (AWS::CloudFormation::Stack) are left out.
 */

type Json = unknown;
interface CfnTemplate {
  Parameters?: Record<string, Json>;
  Resources: Record<string, { Type: string; Properties?: Record<string, Json> } & Record<string, Json>>;
  Outputs?: Record<string, { Value: Json }>;
}

interface Context {
  template: CfnTemplate;
  /** The values the parent passes for this stack's parameters (in the parent's terms), and the parent. */
  passed?: { values: Record<string, Json>; parent: Context };
  /** The nested stacks of this one, by their logical id here. */
  children: Map<string, Context>;
}

export function deployedTemplate(root: Stack): Template {
  const contexts = new Map<Stack, Context>();
  for (const stack of deployedStacks(root)) {
    const template = Template.fromStack(stack).toJSON() as CfnTemplate;
    const context: Context = { template, children: new Map() };
    contexts.set(stack, context);
    const parentStack = stack.nestedStackParent;
    if (parentStack) {
      const parent = contexts.get(parentStack) as Context;
      const resource = (stack as unknown as { nestedStackResource: { node: { defaultChild?: unknown } } }).nestedStackResource;
      const id = parentStack.getLogicalId(resource as never);
      const values = (parent.template.Resources[id]?.Properties?.Parameters ?? {}) as Record<string, Json>;
      context.passed = { values, parent };
      parent.children.set(id, context);
    }
  }
  const resources: CfnTemplate['Resources'] = {};
  for (const context of contexts.values()) {
    for (const [id, resource] of Object.entries(context.template.Resources)) {
      if (resource.Type === 'AWS::CloudFormation::Stack') continue;
      if (id in resources) throw new Error(`Two deployed stacks hold a resource ${id}`);
      resources[id] = resolve(context, resource) as CfnTemplate['Resources'][string];
    }
  }
  const rootTemplate = (contexts.get(root) as Context).template;
  return Template.fromJSON({
    ...rootTemplate,
    Resources: resources,
    Outputs: resolve(contexts.get(root) as Context, rootTemplate.Outputs ?? {}),
  } as never);
}

/** `value` with every cross-stack parameter and nested output replaced by what it stands for. */
function resolve(context: Context, value: Json): Json {
  if (Array.isArray(value)) return value.map((v) => resolve(context, v));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [key, argument] = entries[0] as [string, Json];
    if (key === 'Ref' && typeof argument === 'string' && context.passed && argument in context.passed.values)
      return resolve(context.passed.parent, context.passed.values[argument]);
    if (key === 'Fn::GetAtt' && Array.isArray(argument)) {
      const [id, attribute] = argument as [string, string];
      const child = context.children.get(id);
      if (child && attribute.startsWith('Outputs.')) {
        const output = child.template.Outputs?.[attribute.slice('Outputs.'.length)];
        if (!output) throw new Error(`No output ${attribute} in nested stack ${id}`);
        return resolve(child, output.Value);
      }
    }
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, resolve(context, v)]));
}
