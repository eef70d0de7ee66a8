/**
 * The event-loop lag metrics (`skein_nodejs_eventloop_lag_seconds` and its `_min`, `_max`,
 * `_mean`, `_stddev`, `_p50`, `_p90`, `_p99` figures, prom-client's names and meaning), sampled
 * only while somebody reads the metrics.
 *
 * Why: the lag is sampled by a timer (`monitorEventLoopDelay`, every 100 ms), and those ten
 * wake-ups a second were about half of what an idle daemon cost (0.5 ms of CPU a second).
 * prom-client starts its sampler at once and for good; this one starts at the first read of
 * the metrics (a scrape, an OTLP export) and stops once nobody has read them for
 * ten minutes. Each read reports the samples since the previous one (as prom-client does);
 * the figures of a read with no sample before it (the first one) are 0. The current lag
 * (`_seconds`, one setImmediate's delay, measured at each read) needs no sampler.
 *
 * Boundary rule: these eight metrics only; the rest of prom-client's process metrics are its own.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

/** The sampler's resolution (ms): prom-client's default is 10, ten times the wake-ups. */
const sampleMs = 100;

/** Sampling stops when the metrics have not been read for this long (a scraper reads every minute or so). */
const defaultUnreadStopMs = 10 * 60_000;

/** The names prom-client gives these metrics (before the registry's prefix). */
export const eventLoopLagNames = [
  "nodejs_eventloop_lag_seconds",
  "nodejs_eventloop_lag_min_seconds",
  "nodejs_eventloop_lag_max_seconds",
  "nodejs_eventloop_lag_mean_seconds",
  "nodejs_eventloop_lag_stddev_seconds",
  "nodejs_eventloop_lag_p50_seconds",
  "nodejs_eventloop_lag_p90_seconds",
  "nodejs_eventloop_lag_p99_seconds",
] as const;

/** One figure of the samples, in seconds. */
type Figure = (histogram: IntervalHistogram) => number;

const nanosecondsPerSecond = 1e9;

export class EventLoopLag {
  readonly #unreadStopMs: number;
  #histogram: IntervalHistogram | null = null;
  #stopTimer: NodeJS.Timeout | null = null;

  /** Register the eight metrics in `registry`, each name after `prefix`. */
  constructor(registry: Registry, prefix: string, unreadStopMs = defaultUnreadStopMs) {
    this.#unreadStopMs = unreadStopMs;
    const registers = [registry];
    const figures: Array<[Gauge, Figure]> = [];
    const figure = (name: string, help: string, read: Figure, aggregator: "min" | "max" | "average") =>
      figures.push([new Gauge({ name: prefix + name, help, registers, aggregator }), read]);
    // Registered first: a scrape collects in order, and this one's collect sets the figures below.
    const current: Gauge = new Gauge({
      name: prefix + eventLoopLagNames[0],
      help: "Lag of event loop in seconds.",
      registers,
      aggregator: "average",
      collect: async () => {
        this.#read(figures);
        current.set(await currentLag());
      },
    });
    const seconds = (nanoseconds: number) => nanoseconds / nanosecondsPerSecond;
    figure(eventLoopLagNames[1], "The minimum recorded event loop delay.", (h) => seconds(h.min), "min");
    figure(eventLoopLagNames[2], "The maximum recorded event loop delay.", (h) => seconds(h.max), "max");
    figure(
      eventLoopLagNames[3],
      "The mean of the recorded event loop delays.",
      (h) => seconds(h.mean),
      "average",
    );
    figure(
      eventLoopLagNames[4],
      "The standard deviation of the recorded event loop delays.",
      (h) => seconds(h.stddev),
      "average",
    );
    for (const p of [50, 90, 99] as const) {
      const name = eventLoopLagNames[p === 50 ? 5 : p === 90 ? 6 : 7];
      figure(
        name,
        `The ${p}th percentile of the recorded event loop delays.`,
        (h) => seconds(h.percentile(p)),
        "average",
      );
    }
  }

  /** Whether the sampler runs now (tests). */
  get sampling(): boolean {
    return this.#histogram !== null;
  }

  /** Stop sampling (the daemon stops); a later read starts it again. */
  stop(): void {
    if (this.#stopTimer !== null) clearTimeout(this.#stopTimer);
    this.#stopTimer = null;
    this.#histogram?.disable();
    this.#histogram = null;
  }

  /** Set the figures from the samples since the last read, then start over (and keep sampling). */
  #read(figures: ReadonlyArray<[Gauge, Figure]>): void {
    const histogram = this.#histogram;
    for (const [gauge, read] of figures) {
      if (histogram === null || histogram.count === 0) gauge.reset();
      else gauge.set(read(histogram));
    }
    histogram?.reset();
    if (histogram === null) {
      const started = monitorEventLoopDelay({ resolution: sampleMs });
      started.enable();
      this.#histogram = started;
    }
    if (this.#stopTimer !== null) clearTimeout(this.#stopTimer);
    this.#stopTimer = setTimeout(() => this.stop(), this.#unreadStopMs);
    this.#stopTimer.unref();
  }
}

/** How long a callback queued now waits for the event loop (seconds). */
function currentLag(): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) =>
    setImmediate(() => resolve(Number(process.hrtime.bigint() - start) / nanosecondsPerSecond)),
  );
}
