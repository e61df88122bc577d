/**
 * The Metrics port on Lambda: each count is one CloudWatch Embedded Metric Format record on stdout
 * (Powertools for AWS Lambda's Metrics, a single-metric flush), which CloudWatch Logs turns into a
 * metric in METRICS_NAMESPACE without an API call or a flush to forget before the container
 * freezes. No default dimension: infra's alarm on ReconcileSettled reads the metric without one.
 */
import { MetricUnit, Metrics as Powertools } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../schemas/function-conventions.js';
import type { Metrics } from '../../shared/observability/metrics.js';

export function emfMetrics(): Metrics {
  const emf = new Powertools({ namespace: METRICS_NAMESPACE });
  return {
    count(name, value, dimensions = {}) {
      const record = emf.singleMetric();
      // Each single metric gets the `service` dimension again, whatever its parent was told.
      record.clearDefaultDimensions();
      record.addDimensions({ ...dimensions });
      record.addMetric(name, MetricUnit.Count, value);
    },
  };
}
