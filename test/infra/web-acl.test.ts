/**
 * The AWS WAF web ACL in front of the API stage: a rate-based rule per client IP, answered with the
 * service's 429 shape, associated with the stage. `synthApp` runs cdk-nag (APIG3 now unacknowledged).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthApp } from './synth-app.js';

describe('the web ACL', () => {
  const dev = synthApp();
  const tight = synthApp({ wafRateLimit: '500' });

  it('blocks a client IP over the rate limit with 429 and Retry-After', () => {
    for (const [app, limit] of [
      [dev, 3_000],
      [tight, 500],
    ] as const) {
      app.main.hasResourceProperties('AWS::WAFv2::WebACL', {
        Scope: 'REGIONAL',
        DefaultAction: { Allow: {} },
        Rules: [
          Match.objectLike({
            Statement: {
              RateBasedStatement: { Limit: limit, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
            },
            Action: {
              Block: {
                CustomResponse: Match.objectLike({
                  ResponseCode: 429,
                  ResponseHeaders: [{ Name: 'Retry-After', Value: '300' }],
                }),
              },
            },
          }),
        ],
      });
    }
  });

  it('has a description CloudFormation accepts', () => {
    // AWS::WAFv2::WebACL Description's pattern, as CloudFormation validates it.
    const allowed = /^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]{1,256}$/;
    const [acl] = Object.values(dev.main.findResources('AWS::WAFv2::WebACL'));
    expect(acl?.Properties.Description).toMatch(allowed);
  });

  it('answers in the service error shape', () => {
    const [acl] = Object.values(dev.main.findResources('AWS::WAFv2::WebACL'));
    const bodies = acl?.Properties.CustomResponseBodies as Record<
      string,
      { ContentType: string; Content: string }
    >;
    const [body] = Object.values(bodies);
    expect(body?.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body?.Content ?? '')).toMatchObject({
      error: { code: 'rate_limit_exceeded', retryable: true, details: [] },
    });
  });

  it('is associated with the API stage', () => {
    const [stageId] = Object.keys(dev.main.findResources('AWS::ApiGateway::Stage'));
    const [aclId] = Object.keys(dev.main.findResources('AWS::WAFv2::WebACL'));
    const associations = Object.values(dev.main.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(associations).toHaveLength(1);
    const properties = associations[0]?.Properties as { ResourceArn: unknown; WebACLArn: unknown };
    expect(properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(JSON.stringify(properties.ResourceArn)).toContain(`{"Ref":"${stageId}"}`);
  });
});
