/**
 * The cluster suites' set-up: one fake provider for the enclosing `describe` (reset before each
 * test) and the clusters each test starts on it, every one closed after its test.
 *
 * Boundary rule: test support; hooks and handles only, what a cluster is stays in test-cluster.ts.
 */
import { afterEach } from "vitest";
import type { FakeProvider } from "../../support/fake-provider/server.js";
import { withFakeProvider } from "../../support/fake-provider/with-fake-provider.js";
import { TestCluster } from "./test-cluster.js";

/** The fake provider of a `describe` and the clusters of its current test. */
export interface ClusterScope {
  /** The provider (read it inside tests and hooks). */
  readonly provider: FakeProvider;
  /** A new cluster on the provider, closed after the current test. */
  cluster(): TestCluster;
}

/** One fake provider for the enclosing `describe`, and each test's clusters closed after it. */
export function useTestClusters(): ClusterScope {
  const fake = withFakeProvider();
  const started: TestCluster[] = [];
  afterEach(async () => {
    for (const cluster of started.splice(0)) await cluster.close();
  });
  return {
    get provider(): FakeProvider {
      return fake();
    },
    cluster(): TestCluster {
      const cluster = new TestCluster(fake());
      started.push(cluster);
      return cluster;
    },
  };
}
