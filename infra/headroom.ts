import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestedStack, type Stack } from 'aws-cdk-lib';

/** CloudFormation's limit of resources in one stack (a nested stack counts as one in its parent). */
export const stackResourceLimit = 500;

/** What one deployed stack holds: its name (a nested stack's is `<root>/<id>`) and its resources. */
export interface StackResources {
  stack: string;
  resources: number;
}

/** The stacks deployed with `root`: the root stack, then its nested stacks (and theirs) in the order they were made. */
export function deployedStacks(root: Stack): Stack[] {
  return [root, ...root.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))];
}

/** How many resources each stack deployed with `root` holds, read from the templates of a synthesized assembly in `outdir`. */
export function resourceCounts(root: Stack, outdir: string): StackResources[] {
  return deployedStacks(root).map((stack) => {
    const template = JSON.parse(readFileSync(join(outdir, stack.templateFile), 'utf8')) as { Resources?: Record<string, unknown> };
    return {
      stack: stack === root ? root.stackName : `${root.stackName}/${stack.node.id}`,
      resources: Object.keys(template.Resources ?? {}).length,
    };
  });
}

/** The headroom lines `npm run synth` prints: resources used of the 500 a stack may hold, per stack. */
export function headroomLines(counts: readonly StackResources[]): string[] {
  const width = Math.max(...counts.map((c) => c.stack.length));
  return [
    `Resources per stack (CloudFormation takes at most ${stackResourceLimit}):`,
    ...counts.map(
      (c) =>
        `  ${c.stack.padEnd(width)}  ${String(c.resources).padStart(3)} of ${stackResourceLimit}, ${stackResourceLimit - c.resources} left`,
    ),
  ];
}
