/** The daemon's tracing, started when the standard OpenTelemetry variables ask for it. */
import type pino from "pino";
import { packageVersion } from "../../home/package-version.js";
import { telemetrySettingsOf } from "../telemetry/telemetry-settings.js";
import { Tracing } from "../telemetry/tracing.js";

/**
 * Tracing as `env` configures it (null: off), its shutdown left in `undo`; what was set but
 * not understood is logged.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  logger: pino.Logger,
  undo: Array<() => Promise<void> | void>,
): Promise<Tracing | null> {
  const { settings, warnings } = telemetrySettingsOf(env);
  for (const warning of warnings) logger.warn({ setting: warning }, "OpenTelemetry setting ignored");
  if (settings === null) return null;
  const tracing = await Tracing.start(settings, packageVersion());
  undo.push(() => tracing.shutdown());
  logger.info({ exports: settings.exports, sampler: settings.sampler.kind }, "exporting traces");
  return tracing;
}
