import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { StackSecret } from '../shared/routes.ts';

/**
 * The stack's generated secrets, each created once, on the first function that declares it. A
 * function is told where its secret is (`<NAME>_ARN`) and may read that secret and no other
 * (`secretsmanager:GetSecretValue`); it reads the value at run time (shared/aws/secrets.ts), so
 * the value is in neither the template nor the function's environment.
 */
export class StackSecrets {
  private readonly secrets = new Map<StackSecret, secretsmanager.Secret>();
  private readonly scope: Construct;

  constructor(scope: Construct) {
    this.scope = scope;
  }

  /** Environment variables naming where each secret is: `<NAME>_ARN`. */
  environment(names: readonly StackSecret[] = []): Record<string, string> {
    return Object.fromEntries(names.map((name) => [`${name}_ARN`, this.secret(name).secretArn]));
  }

  /** The statement letting a function read its secrets (none when it declares none). */
  readStatement(names: readonly StackSecret[] = []): iam.PolicyStatement | undefined {
    if (names.length === 0) return undefined;
    return new iam.PolicyStatement({
      actions: ['secretsmanager:GetSecretValue'],
      resources: names.map((name) => this.secret(name).secretArn),
    });
  }

  private secret(name: StackSecret): secretsmanager.Secret {
    let secret = this.secrets.get(name);
    if (!secret) {
      secret = new secretsmanager.Secret(this.scope, `Secret-${name}`, {
        description: `${name} for the registrar functions`,
        generateSecretString: { passwordLength: 48, excludePunctuation: true },
      });
      if (name === 'RTR_API_KEY') {
        // Not a key of ours: the upstream issues it, the operator puts it here (and rotates it there, then here).
        Validations.of(secret).acknowledge({
          id: 'AwsSolutions::AwsSolutions-SMG4',
          reason: 'The upstream registry account issues this API key; it is rotated at the upstream and then put into this secret by hand.',
        });
      }
      this.secrets.set(name, secret);
    }
    return secret;
  }
}
