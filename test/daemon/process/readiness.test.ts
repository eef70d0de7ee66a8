import { describe, expect, it } from "vitest";
import { checkReadiness, type ReadinessSources } from "../../../src/daemon/process/readiness.js";

function sources(overrides: Partial<ReadinessSources> = {}): ReadinessSources {
  return {
    draining: () => false,
    appliedSchemaVersion: async () => 7,
    knownSchemaVersion: 7,
    databaseTimeoutMs: 50,
    ...overrides,
  };
}

describe("readiness", () => {
  it("is ready when nothing says otherwise", async () => {
    expect(await checkReadiness(sources())).toEqual({ ready: true });
  });

  it("is not ready while draining, whatever the database says", async () => {
    expect(await checkReadiness(sources({ draining: () => true }))).toEqual({
      ready: false,
      reason: "the daemon is draining",
    });
  });

  it("is not ready when the database does not answer within the bound", async () => {
    const started = Date.now();
    const readiness = await checkReadiness(
      sources({ appliedSchemaVersion: () => new Promise<number>(() => {}) }),
    );
    expect(readiness).toEqual({
      ready: false,
      reason: "the database did not answer: no answer within 50 ms",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("is not ready when the database fails or holds another schema version", async () => {
    const failing = await checkReadiness(
      sources({ appliedSchemaVersion: () => Promise.reject(new Error("connect ECONNREFUSED")) }),
    );
    expect(failing).toEqual({ ready: false, reason: "the database did not answer: connect ECONNREFUSED" });
    expect(await checkReadiness(sources({ appliedSchemaVersion: async () => 8 }))).toEqual({
      ready: false,
      reason: "the database holds schema version 8, this daemon 7",
    });
  });

  it("is not ready when the cluster node says why", async () => {
    expect(await checkReadiness(sources({ clusterNotReady: () => "this node has stopped" }))).toEqual({
      ready: false,
      reason: "this node has stopped",
    });
  });
});
