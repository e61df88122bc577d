/**
 * The service's operational counters, a port: the local server counts nothing (its logs say it
 * all), a Lambda function writes CloudWatch Embedded Metric Format (functions/lambda/emf-metrics.ts),
 * which CloudWatch turns into metrics in the `LookupService` namespace with no API call.
 * Dimensions are few and bounded (operation ids, error codes, reasons), since every distinct
 * combination is a metric CloudWatch bills.
 */
export type MetricName =
  /** Every lookup through the billed pipeline, by `Operation` and `Transport`. */
  | 'Requests'
  /** A lookup answered with an error, by `Operation` and error `Code`. */
  | 'Errors'
  /** Credits kept for a lookup, by `Operation`. */
  | 'CreditsCharged'
  /** Credits debited and given back, by `Operation` and the refund's `Reason` (the error code). */
  | 'CreditsRefunded'
  /** A lookup refused by the account's rate limit, by `Operation`. */
  | 'RateLimitDenied'
  /** A browser request the egress proxy refused, by `Reason`. */
  | 'EgressDenied'
  /** The verdict of an email verification or find, by `Operation` and `Status`. */
  | 'SmtpOutcome'
  /** In-flight debits the scheduled reconcile settled (a timed-out or crashed function left them). */
  | 'ReconcileSettled';

export interface Metrics {
  count(name: MetricName, value: number, dimensions?: Readonly<Record<string, string>>): void;
}

export const noMetrics: Metrics = { count: () => {} };
