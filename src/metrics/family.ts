// Metric families as they cross threads: the JSON shape prom-client's `Registry.getMetricsAsJSON()`
// gives and `AggregatorRegistry.aggregate()` takes, so each thread keeps its own figures and the front
// that is scraped merges them with prom-client, without a call to any actor per scrape.

export type MetricKind = 'counter' | 'gauge' | 'histogram';
export type Labels = Record<string, string | number>;

export interface MetricSample {
  value: number;
  labels: Labels;
  /** Histograms: `<name>_bucket`, `<name>_sum`, `<name>_count`. */
  metricName?: string;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricKind;
  /** How prom-client merges samples with the same labels from several threads. */
  aggregator: 'sum' | 'max';
  values: MetricSample[];
}

export function family(name: string, help: string, type: Exclude<MetricKind, 'histogram'>, values: MetricSample[]): MetricFamily {
  return { name, help, type, aggregator: 'sum', values };
}

/** Adds `labels` to every sample (the thread and role a family came from). */
export function withLabels(families: readonly MetricFamily[], labels: Labels): MetricFamily[] {
  return families.map((entry) => ({ ...entry, values: entry.values.map((sample) => ({ ...sample, labels: { ...sample.labels, ...labels } })) }));
}
