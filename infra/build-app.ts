/**
 * Builds the deployment into a CDK app: reads the settings (context, then environment), adds the
 * stage's stack and the cdk-nag AwsSolutions checks. Tests call this on their own App.
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LookupServiceStack } from './lookup-service-stack.js';
import { acknowledgeNagFindings } from './nag-acknowledgements.js';
import { readSettings } from './settings.js';

export function buildApp(app: App): LookupServiceStack {
  const settings = readSettings((name) => app.node.tryGetContext(name));
  const stack = new LookupServiceStack(app, `LookupService-${settings.stage}`, {
    settings,
    description: `Professional data lookup service, stage ${settings.stage}`,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  acknowledgeNagFindings(stack);
  return stack;
}
