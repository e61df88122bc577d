/**
 * The AWS WAF web ACL in front of the API stage. Its rate-based rule blocks a client IP that sends
 * more than `wafRateLimit` requests in 5 minutes, at the edge of API Gateway: a flood of invalid keys
 * never reaches a function (each Lambda environment's own auth-failure throttle counts alone, and
 * stage throttling is shared by every client). Blocked requests get the service's 429 error shape.
 */
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';

/** WAF's evaluation window: the rate limit counts requests per client IP over this many seconds. */
export const WAF_WINDOW_SECONDS = 300;
const RATE_LIMITED_BODY = 'rate-limited';

export function protectStage(
  scope: Construct,
  stage: apigateway.Stage,
  settings: { stage: string; wafRateLimit: number },
): wafv2.CfnWebACL {
  const metric = (name: string) => ({
    cloudWatchMetricsEnabled: true,
    metricName: `lookup-${settings.stage}-${name}`,
    sampledRequestsEnabled: true,
  });
  const acl = new wafv2.CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    // CloudFormation takes letters, digits, spaces and = : # @ / - , . + only (no parentheses).
    description: `Per-IP rate limit in front of the lookup API, stage ${settings.stage}`,
    defaultAction: { allow: {} },
    visibilityConfig: metric('acl'),
    customResponseBodies: {
      [RATE_LIMITED_BODY]: {
        contentType: 'APPLICATION_JSON',
        // WAF answers before any function: there is no request id to give.
        content: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: `Too many requests from this address; retry after ${WAF_WINDOW_SECONDS} s.`,
            retryable: true,
            details: [],
          },
        }),
      },
    },
    rules: [
      {
        name: 'RateLimitPerIp',
        priority: 0,
        statement: {
          rateBasedStatement: {
            limit: settings.wafRateLimit,
            aggregateKeyType: 'IP',
            evaluationWindowSec: WAF_WINDOW_SECONDS,
          },
        },
        action: {
          block: {
            customResponse: {
              responseCode: 429,
              customResponseBodyKey: RATE_LIMITED_BODY,
              responseHeaders: [{ name: 'Retry-After', value: String(WAF_WINDOW_SECONDS) }],
            },
          },
        },
        visibilityConfig: metric('rate-limit-per-ip'),
      },
    ],
  });
  new wafv2.CfnWebACLAssociation(scope, 'WebAclAssociation', {
    resourceArn: stage.stageArn,
    webAclArn: acl.attrArn,
  });
  return acl;
}
