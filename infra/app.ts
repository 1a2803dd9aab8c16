import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { RegistrarStack } from './stack.ts';

/** `cdk synth` / `cdk deploy` entry point (cdk.json). Account and region from the standard AWS environment. */
const app = new App();
new RegistrarStack(app, 'RegistrarStack', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
