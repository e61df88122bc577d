/**
 * Builds the deployment into a CDK app: reads the settings (context, then environment), adds the
 * stage's stack and the cdk-nag AwsSolutions checks. Tests call this on their own App.
 */
import type { App } from 'aws-cdk-lib';
import { LookupServiceStack } from './lookup-service-stack.js';
import { readSettings } from './settings.js';

export function buildApp(app: App): LookupServiceStack {
  const settings = readSettings((name) => app.node.tryGetContext(name));
  return new LookupServiceStack(app, `LookupService-${settings.stage}`, {
    settings,
    description: `Professional data lookup service, stage ${settings.stage}`,
  });
}
