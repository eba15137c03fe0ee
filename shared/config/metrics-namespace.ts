/** The CloudWatch namespace of the service's own metrics; the stack's alarms and dashboard read it too. */
export const METRICS_NAMESPACE = 'MerchantAnalytics';
