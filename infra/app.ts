/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy`): one environment-agnostic stack per stage, built
 * from the prebuilt bundles of `npm run build`. No lookups, so it synthesizes without AWS
 * credentials or network. Settings: infra/settings.ts and docs/aws.md.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.js';

const app = new App();
buildApp(app);
app.synth();
