import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { RegistrarStack } from './stack.ts';
import { stageFromContext } from './stages.ts';

/**
 * `cdk synth` / `cdk deploy` entry point (cdk.json). The stage is chosen on the command line
 * (`-c stage=sandbox`, as `npm run synth` and `npm run deploy` pass it), never by default; its
 * settings are its file, stages/<name>.json (infra/stages.ts); the stack is named after it. Account and region from the standard AWS environment.
 */
const app = new App();
const stage = stageFromContext(app.node.tryGetContext('stage'));
new RegistrarStack(app, `Registrar-${stage.name}`, {
  stage,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
