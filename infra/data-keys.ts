import { CfnParameter, type NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { Reach } from '../shared/routes.ts';

/**
 * The stack's KMS key for webhook signing secrets (envelope encryption: docs/security.md,
 * shared/notifications/secret-box.ts): yearly rotation on, retained with the table whose secrets it
 * opens. A function that declares `dataKeys` gets exactly those actions on this key and its ARN in
 * `WEBHOOK_SECRETS_KMS_KEY_ID`; no other function may use it (the key policy is the account's
 * default, so only IAM grants open it).
 */
export function addWebhookSecretsKey(scope: Construct): kms.Key {
  return new kms.Key(scope, 'WebhookSecretsKey', {
    description: 'Wraps the data keys that seal webhook signing secrets in the table.',
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

const keyArnParameter = 'WebhookSecretsKeyArn';

/** The key's ARN as a routes stack sees it: the parameter WebhookSecretsKeyArn. */
export function keyArnIn(nested: NestedStack, key: kms.Key): string {
  nested.setParameter(keyArnParameter, key.keyArn);
  return new CfnParameter(nested, keyArnParameter, { type: 'String', description: 'The ARN of the key sealing webhook secrets.' })
    .valueAsString;
}

/** What a function declaring `dataKeys` is handed: the environment, and the one statement granting its actions on the key. */
export function dataKeyUse(declaration: Pick<Reach, 'dataKeys'>, keyArn: string | undefined) {
  if (!declaration.dataKeys?.length) return undefined;
  if (keyArn === undefined) throw new Error('A function uses the webhook secrets key, and the stack handed it none');
  return {
    environment: { WEBHOOK_SECRETS_KMS_KEY_ID: keyArn },
    statement: new iam.PolicyStatement({ actions: declaration.dataKeys.map((a) => `kms:${a}`), resources: [keyArn] }),
  };
}
