import { RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { callsOf, type FunctionDeclaration } from './function.ts';
import { implementationsOf, type Stage } from './stages.ts';

/**
 * The DNS provider's part of the stack (docs/dns.md) beyond what its stage file hands every function
 * that calls the DNS integration (infra/stages.ts: PowerDNS's API URL, server id and API key's
 * secret; Route 53's delegation set): under `route53`, the Route 53 calls of the adapter and a KMS
 * key for DNSSEC, for the functions that call the integration (the zone sync, the reconcile job and
 * the DCV job, which publishes ACME's dns-01 records).
 */

const dnssecKeys = new WeakMap<Construct, kms.Key>();

/**
 * The KMS key Route 53 signs DNSSEC zones with: asymmetric ECC_NIST_P256 for signing, usable by
 * Route 53's DNSSEC service in this account (one per stack). Route 53 takes such a key only in
 * us-east-1: a stack elsewhere gets none, and signing a zone is then refused with its reason.
 */
function dnssecKey(stack: Stack): kms.Key | undefined {
  if (!Token.isUnresolved(stack.region) && stack.region !== 'us-east-1') return undefined;
  let key = dnssecKeys.get(stack);
  if (!key) {
    key = new kms.Key(stack, 'Route53DnssecKey', {
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      description: 'Key-signing key of the managed zones (Route 53 DNSSEC)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const route53 = new iam.ServicePrincipal('dnssec-route53.amazonaws.com');
    const fromThisAccount = { StringEquals: { 'aws:SourceAccount': stack.account } };
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'Route53DnssecUse',
        principals: [route53],
        actions: ['kms:DescribeKey', 'kms:GetPublicKey', 'kms:Sign'],
        resources: ['*'],
        conditions: fromThisAccount,
      }),
    );
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'Route53DnssecGrant',
        principals: [route53],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { ...fromThisAccount, Bool: { 'kms:GrantIsForAWSResource': true } },
      }),
    );
    dnssecKeys.set(stack, key);
  }
  return key;
}

/** What Route 53 lets a function do to hosted zones: the calls of shared/dns/route53.ts, no more. */
const route53Actions = [
  'route53:ListHostedZonesByName',
  'route53:CreateHostedZone',
  'route53:DeleteHostedZone',
  'route53:ListResourceRecordSets',
  'route53:ChangeResourceRecordSets',
  'route53:GetChange',
  'route53:GetDNSSEC',
  'route53:CreateKeySigningKey',
  'route53:EnableHostedZoneDNSSEC',
  'route53:DisableHostedZoneDNSSEC',
];

/**
 * A zone-pushing function on a Route 53 stage: the DNSSEC key's ARN, the Route 53 calls it makes,
 * on every hosted zone (they are created at run time, so no ARN is known), and the use of the
 * DNSSEC key for Route 53.
 */
export function grantRoute53(fn: lambda.Function, stage: Stage, declaration: FunctionDeclaration): void {
  if (!callsOf(declaration).includes('dns') || implementationsOf(stage).dns !== 'route53') return;
  // The key is the root stack's, whichever stack holds the function.
  let stack = Stack.of(fn);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: route53Actions, resources: ['*'] }));
  const key = dnssecKey(stack);
  if (key) {
    fn.addEnvironment('ROUTE53_KSK_KMS_KEY_ARN', key.keyArn);
    // Creating a key-signing key checks that the caller may let Route 53 use the key.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['kms:DescribeKey', 'kms:GetPublicKey', 'kms:Sign', 'kms:CreateGrant'], resources: [key.keyArn] }),
    );
  }
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'Hosted zones are created at run time, one per managed zone: their ids are unknown at deploy time, and ListHostedZonesByName and GetChange have no resource scope.',
  });
}
