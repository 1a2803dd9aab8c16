import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { StackSecret } from '../shared/routes.ts';

/**
 * The stack's generated secrets, each created once, on the first function that declares it, and
 * handed over as a CloudFormation dynamic reference (resolved at deploy time; the value never
 * appears in the template).
 */
export class StackSecrets {
  private readonly secrets = new Map<StackSecret, secretsmanager.Secret>();
  private readonly scope: Construct;

  constructor(scope: Construct) {
    this.scope = scope;
  }

  /** Environment variables named after the secrets, each holding a reference to its value. */
  environment(names: readonly StackSecret[] = []): Record<string, string> {
    return Object.fromEntries(names.map((name) => [name, this.secret(name).secretValue.unsafeUnwrap()]));
  }

  private secret(name: StackSecret): secretsmanager.Secret {
    let secret = this.secrets.get(name);
    if (!secret) {
      secret = new secretsmanager.Secret(this.scope, `Secret-${name}`, {
        description: `${name} for the registrar functions`,
        generateSecretString: { passwordLength: 48, excludePunctuation: true },
      });
      this.secrets.set(name, secret);
    }
    return secret;
  }
}
