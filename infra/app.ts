import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { headroomLines, resourceCounts, stackResourceLimit } from './headroom.ts';
import { RegistrarStack } from './stack.ts';
import { type Stage, stageFromContext } from './stages.ts';

/**
 * `cdk synth` / `cdk deploy` entry point (cdk.json). The stage is chosen on the command line
 * (`-c stage=sandbox`; `npm run synth` and `npm run deploy` name `sandbox` when no stage is given),
 * never by default; its settings are its file, stages/<name>.json (infra/stages.ts); the stack is
 * named after it. Account and region from the standard AWS environment. A stage that cannot be
 * read stops the synth with its problems, each by its path, and no stack trace. After the synth,
 * the resources of every stack (of CloudFormation's 500) are printed on stderr, unless
 * REGISTRAR_SYNTH_QUIET is set (`npm run synth -- --quiet`).
 */
const app = new App();
let stage: Stage;
try {
  stage = stageFromContext(app.node.tryGetContext('stage'));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const stack = new RegistrarStack(app, `Registrar-${stage.name}`, {
  stage,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
const assembly = app.synth();
const counts = resourceCounts(stack, assembly.directory);
if (!process.env.REGISTRAR_SYNTH_QUIET) console.error(headroomLines(counts).join('\n'));
const over = counts.filter((c) => c.resources > stackResourceLimit);
if (over.length > 0) {
  console.error(`Over CloudFormation's ${stackResourceLimit} resources: ${over.map((c) => `${c.stack} (${c.resources})`).join(', ')}`);
  process.exitCode = 1;
}
