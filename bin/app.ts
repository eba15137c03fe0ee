import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ApiStack } from '../lib/api-stack';

const app = new App();

// Environment-agnostic (no account or region), so synth needs no credentials and the same
// template deploys to whichever account the deploying credentials belong to.
new ApiStack(app, 'MerchantAnalyticsApi', {
  description: 'Merchant analytics API: HTTP API, one Lambda per route, DynamoDB table, EventBridge bus',
});

// cdk-nag 3 runs as a policy-validation plugin: an unacknowledged error fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
