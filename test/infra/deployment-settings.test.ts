import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { physicalFunctionName } from '../../infra/function-stack.js';
import { readSettings, SettingsError } from '../../infra/settings.js';
import { synthApp } from './synth-app.js';

const secret = (name: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}-AbCdEf`;
type Json = Record<string, unknown>;

/**
 * Every synth here also runs cdk-nag's AwsSolutions pack: an unacknowledged finding throws. A synth
 * with the email VPC takes 20+ s alone, so its test waits longer than the default.
 */
describe('deployment settings', () => {
  it('puts only the SMTP functions in a VPC behind NAT gateways, out on 25, 53 and 443 only (emailEgress=vpc)', () => {
    const emails = synthApp({ emailEgress: 'vpc', tracing: 'true' }).nested.get(
      'Functions-emails',
    ) as Template;
    emails.resourceCountIs('AWS::EC2::NatGateway', 2);
    emails.resourceCountIs('AWS::EC2::FlowLog', 1);
    const fns = Object.values(emails.findResources('AWS::Lambda::Function')).map((r) => r.Properties as Json);
    const inVpc = fns.filter((fn) => fn.VpcConfig).map((fn) => fn.FunctionName);
    expect(inVpc.sort()).toEqual([
      physicalFunctionName('dev', 'batch-emails-smtp'),
      physicalFunctionName('dev', 'emails-find'),
      physicalFunctionName('dev', 'emails-verify'),
    ]);
    const groups = Object.values(emails.findResources('AWS::EC2::SecurityGroup'));
    const ports = ((groups[0] as Json).Properties as { SecurityGroupEgress: Json[] }).SecurityGroupEgress.map(
      (rule) => rule.FromPort,
    ).sort();
    expect(ports).toEqual([25, 443, 53, 53]);
  }, 120_000);

  it('runs the SMTP tool group in the same VPC, so the Elastic IPs mail servers know serve /mcp too', () => {
    const app = synthApp({ emailEgress: 'vpc', natEipAllocationIds: 'eipalloc-0a1,eipalloc-0b2' });
    const vpcs = [...app.all].filter(
      ([, template]) => Object.keys(template.findResources('AWS::EC2::VPC')).length,
    );
    expect(vpcs.map(([id]) => id)).toEqual(['Functions-emails']);
    const nat = Object.values(
      app.nested.get('Functions-emails')?.findResources('AWS::EC2::NatGateway') ?? {},
    );
    expect(nat.map((gateway) => JSON.stringify(gateway.Properties.AllocationId)).sort()).toEqual([
      '"eipalloc-0a1"',
      '"eipalloc-0b2"',
    ]);
    const mcp = app.nested.get('Functions-mcp') as Template;
    const inVpc = Object.values(mcp.findResources('AWS::Lambda::Function'))
      .map((resource) => resource.Properties as Json)
      .filter((fn) => fn.VpcConfig)
      .map((fn) => fn.FunctionName);
    expect(inVpc).toEqual([physicalFunctionName('dev', 'mcp-group-emails-smtp')]);
  });

  it('passes the SOCKS relay and the upstream key by secret ARN, never by value', () => {
    const app = synthApp({
      emailEgress: 'socks',
      smtpSocksSecretArn: secret('socks'),
      dataSource: 'upstream',
      upstreamUrl: 'https://upstream.example.com',
      upstreamApiKeySecretArn: secret('upstream'),
      domainName: 'api.example.com',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
    });
    const variables = (stack: string, fn: string) =>
      (
        Object.values(
          (app.nested.get(stack) as Template).findResources('AWS::Lambda::Function', {
            Properties: { FunctionName: physicalFunctionName('dev', fn) },
          }),
        )[0] as { Properties: { Environment: { Variables: Json } } }
      ).Properties.Environment.Variables;
    expect(variables('Functions-emails', 'emails-verify').SMTP_SOCKS_PROXY_SECRET_ARN).toBe(secret('socks'));
    expect(variables('Functions-emails', 'emails-disposable').SMTP_SOCKS_PROXY_SECRET_ARN).toBeUndefined();
    expect(variables('Functions-mcp', 'mcp-group-emails-smtp').SMTP_SOCKS_PROXY_SECRET_ARN).toBe(
      secret('socks'),
    );
    const details = variables('Functions-profiles', 'profiles-details');
    expect(details).toMatchObject({
      DATA_SOURCE: 'upstream',
      UPSTREAM_URL: 'https://upstream.example.com',
      UPSTREAM_API_KEY_SECRET_ARN: secret('upstream'),
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
    expect(details.DATASET).toBeUndefined();
    app.main.resourceCountIs('AWS::ApiGateway::DomainName', 1);
  });

  it('refuses incomplete settings naming the setting and its environment variable', () => {
    expect(() => readSettings(() => undefined, { LOOKUP_EMAIL_EGRESS: 'socks' })).toThrow(
      /smtpSocksSecretArn \(LOOKUP_SMTP_SOCKS_SECRET_ARN\): is required when emailEgress=socks/,
    );
    expect(() => readSettings(() => undefined, { LOOKUP_DOMAIN_NAME: 'api.example.com' })).toThrow(
      SettingsError,
    );
    expect(readSettings((name) => (name === 'stage' ? 'prod' : undefined), {}).production).toBe(true);
    expect(readSettings(() => undefined, { LOOKUP_STAGE: 'staging' }).production).toBe(false);
  });
});
