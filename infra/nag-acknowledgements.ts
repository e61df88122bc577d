/**
 * The cdk-nag AwsSolutions findings this deployment accepts, each with its reason. Everything else
 * the pack reports fails the synth.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const acknowledged: readonly { id: string; reason: string }[] = [
  {
    id: 'AwsSolutions-APIG2',
    reason:
      'Every function validates its own query against the catalog schema and answers 400 with error.details[]; API Gateway request validation would answer in another shape.',
  },
  {
    id: 'AwsSolutions-APIG4',
    reason:
      'Authorization is the service itself: API keys (and OAuth tokens on /mcp) are checked by every function against the table, per account and scope; the pages are public by design.',
  },
  {
    id: 'AwsSolutions-COG4',
    reason: 'Callers are API-key or OAuth clients of the service, not Cognito users (see APIG4).',
  },
  {
    id: 'AwsSolutions-APIG6',
    reason:
      'Execution logging needs an account-wide API Gateway CloudWatch role; JSON access logs on the stage and the functions’ own logs cover each request.',
  },
  {
    id: 'AwsSolutions-SMG4',
    reason:
      'CURSOR_SECRET, OAUTH_SIGNING_SECRET, UPSTREAM_API_KEY and the SOCKS relay address are rotated by the operator; rotating the cursor secret expires live cursors, which the operator should choose to do; the OAuth signing secret rotates in two steps (new,old, then new once the access-token lifetime has passed: docs/aws.md), which no single-value rotation function can do.',
  },
];

/** Acknowledgements that only arise with a setting: X-Ray's and the VPC's AWS managed pieces. */
export const settingAcknowledgements = {
  tracing: {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray PutTraceSegments/PutTelemetryRecords take no resource: "*" is the only form.',
  },
  vpcAccess: {
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason: 'The AWS managed policy Lambda needs to attach network interfaces in the email egress VPC.',
  },
} as const;

export function acknowledgeNagFindings(scope: IConstruct): void {
  for (const entry of acknowledged) Validations.of(scope).acknowledge(entry);
}
