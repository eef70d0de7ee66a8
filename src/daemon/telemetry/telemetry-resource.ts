/** The OpenTelemetry resource the daemon's traces and metrics are exported under. */
import type { Resource } from "@opentelemetry/resources";

/** `service.name` skein and the daemon's `version`, under OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES when set. */
export async function telemetryResource(version: string): Promise<Resource> {
  const resources = await import("@opentelemetry/resources");
  return (
    resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ "service.name": "skein", "service.version": version }))
      // The environment's attributes win over the defaults above.
      .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  );
}
