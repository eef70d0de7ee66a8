/**
 * The daemon's Prometheus metrics (one registry, process/daemon-metrics.ts) as OpenTelemetry
 * metric data, for an OTLP export of the same figures `GET /metrics` shows: counters become
 * monotonic cumulative sums, gauges gauges, histograms cumulative histograms (bucket counts
 * de-accumulated: Prometheus counts each bucket with all below it, OTLP each on its own).
 *
 * Boundary rule: a pure translation of what the registry gives when asked; one source of truth
 * for every metric, so the two views can never count differently.
 */
import type { Attributes, HrTime } from "@opentelemetry/api";
import type { MetricData, MetricProducer } from "@opentelemetry/sdk-metrics";
import type { Registry } from "prom-client";

type PromJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;
type PromSample = PromJson[number]["values"][number] & { metricName?: string };

/** The SDK's enums by value (AggregationTemporality.CUMULATIVE, DataPointType, ValueType.DOUBLE), so only types are imported here. */
const cumulative = 1;
const histogramPoint = 0;
const gaugePoint = 2;
const sumPoint = 3;
const double = 1;

/** A producer of `registry`'s metrics since `startTime` (the daemon's start). */
export function prometheusMetricProducer(registry: Registry, startTime: HrTime): MetricProducer {
  return {
    async collect() {
      const endTime = hrNow();
      const metrics: MetricData[] = [];
      for (const family of await registry.getMetricsAsJSON()) {
        const metric = metricOf(family, startTime, endTime);
        if (metric !== null) metrics.push(metric);
      }
      return {
        // The reader merges producers' scopes under its own provider's resource.
        resourceMetrics: {
          resource: undefined as never,
          scopeMetrics: [{ scope: { name: "skein" }, metrics }],
        },
        errors: [],
      };
    },
  };
}

function metricOf(family: PromJson[number], startTime: HrTime, endTime: HrTime): MetricData | null {
  const descriptor = { name: family.name, description: family.help, unit: "", valueType: double };
  const point = <T>(attributes: Attributes, value: T) => ({ startTime, endTime, attributes, value });
  const samples = family.values as PromSample[];
  switch (String(family.type)) {
    case "counter":
      return {
        descriptor,
        aggregationTemporality: cumulative,
        dataPointType: sumPoint,
        isMonotonic: true,
        dataPoints: samples.map((sample) => point(attributesOf(sample.labels), sample.value)),
      } as MetricData;
    case "gauge":
      return {
        descriptor,
        aggregationTemporality: cumulative,
        dataPointType: gaugePoint,
        dataPoints: samples.map((sample) => point(attributesOf(sample.labels), sample.value)),
      } as MetricData;
    case "histogram":
      return {
        descriptor,
        aggregationTemporality: cumulative,
        dataPointType: histogramPoint,
        dataPoints: histogramSeries(family.name, samples).map((series) =>
          point(series.attributes, series.value),
        ),
      } as MetricData;
    default:
      // Summaries: the daemon makes none.
      return null;
  }
}

interface HistogramValue {
  buckets: { boundaries: number[]; counts: number[] };
  sum: number;
  count: number;
}

/** Prometheus's `_bucket`/`_sum`/`_count` samples of one histogram, grouped per label set. */
function histogramSeries(name: string, samples: readonly PromSample[]) {
  const series = new Map<
    string,
    { attributes: Attributes; bounds: [number, number][]; sum: number; count: number }
  >();
  for (const sample of samples) {
    const { le, ...labels } = sample.labels as Record<string, string | number>;
    const attributes = attributesOf(labels);
    const key = JSON.stringify(attributes);
    const entry = series.get(key) ?? { attributes, bounds: [], sum: 0, count: 0 };
    series.set(key, entry);
    if (sample.metricName === `${name}_bucket`)
      entry.bounds.push([le === "+Inf" ? Infinity : Number(le), sample.value]);
    else if (sample.metricName === `${name}_sum`) entry.sum = sample.value;
    else if (sample.metricName === `${name}_count`) entry.count = sample.value;
  }
  return [...series.values()].map(({ attributes, bounds, sum, count }) => {
    bounds.sort((a, b) => a[0] - b[0]);
    const boundaries = bounds.filter(([bound]) => bound !== Infinity).map(([bound]) => bound);
    const counts = bounds.map(
      ([, cumulativeCount], i) => cumulativeCount - (i === 0 ? 0 : bounds[i - 1]![1]),
    );
    const value: HistogramValue = { buckets: { boundaries, counts }, sum, count };
    return { attributes, value };
  });
}

function attributesOf(labels: Record<string, string | number | undefined>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(labels)) if (value !== undefined) attributes[key] = String(value);
  return attributes;
}

function hrNow(): HrTime {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}
