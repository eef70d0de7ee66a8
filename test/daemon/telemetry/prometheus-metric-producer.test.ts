import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { prometheusMetricProducer } from "../../../src/daemon/telemetry/prometheus-metric-producer.js";

describe("the Prometheus registry as OpenTelemetry metric data", () => {
  it("turns counters into monotonic sums, gauges into gauges and histograms into per-bucket counts", async () => {
    const registry = new Registry();
    const registers = [registry];
    new Counter({ name: "skein_c_total", help: "c", labelNames: ["k"], registers }).inc({ k: "a" }, 3);
    new Gauge({ name: "skein_g", help: "g", registers }).set(7);
    const histogram = new Histogram({
      name: "skein_h",
      help: "h",
      labelNames: ["m"],
      buckets: [1, 5],
      registers,
    });
    for (const value of [0.5, 2, 3, 9]) histogram.observe({ m: "x" }, value);
    const { resourceMetrics } = await prometheusMetricProducer(registry, [1, 0]).collect();
    const metrics = resourceMetrics.scopeMetrics[0]!.metrics;
    const byName = new Map(metrics.map((metric) => [metric.descriptor.name, metric]));
    expect(byName.get("skein_c_total")).toMatchObject({
      dataPointType: 3,
      isMonotonic: true,
      dataPoints: [{ attributes: { k: "a" }, value: 3 }],
    });
    expect(byName.get("skein_g")).toMatchObject({ dataPointType: 2, dataPoints: [{ value: 7 }] });
    expect(byName.get("skein_h")).toMatchObject({
      dataPointType: 0,
      dataPoints: [
        {
          attributes: { m: "x" },
          value: { buckets: { boundaries: [1, 5], counts: [1, 2, 1] }, sum: 14.5, count: 4 },
        },
      ],
    });
  });
});
