/**
 * A cluster of real daemon processes on one fresh PostgreSQL schema, sharing a token and one
 * head-signing key (as the docs tell an operator to provision them), for the cluster suites.
 *
 * Boundary rule: like the harness, it knows the daemons only through their processes, homes,
 * HTTP and the rows of their schema.
 */
import { randomBytes } from "node:crypto";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { text } from "../../support/fake-provider/reply.js";
import type { FakeProvider } from "../../support/fake-provider/server.js";
import { createPgSchema, type PgSchema, pgServerUrl } from "../../support/pg-schema.js";
import { DaemonHarness } from "./daemon-harness.js";
import { profileFor } from "./fixture.js";

/** What one node adds to the cluster's settings. */
export interface NodeOptions {
  env?: Record<string, string>;
  /** The address it is reached at (default 127.0.0.1). */
  address?: string;
  /** A command it runs under (e.g. `ip netns exec NS`). */
  launcher?: string[];
  /** A head-signing key of its own instead of the cluster's shared one. */
  signingKeyPem?: string;
  /** Other top-level fields of its config.json (e.g. `agents`). */
  config?: Record<string, unknown>;
}

export class TestCluster {
  readonly token = randomBytes(24).toString("hex");
  readonly signingKeyPem = HeadSigner.generate().privateKeyPem();
  nodes: DaemonHarness[] = [];
  #schema: PgSchema | null = null;
  #lease = 2;

  constructor(
    readonly provider: FakeProvider,
    /** The PostgreSQL server the schema is made on, as the test process reaches it. */
    readonly serverUrl = pgServerUrl,
  ) {}

  /** The cluster's schema (after `start`). */
  get schema(): PgSchema {
    if (this.#schema === null) throw new Error("the cluster has not started");
    return this.#schema;
  }

  /**
   * `count` nodes with `lease`-second leases on a fresh schema; `perNode(i)` adds a node's own
   * settings. `databaseUrl` rewrites the schema's URL as the nodes reach the server.
   */
  async start(
    count: number,
    lease: number,
    perNode: (index: number) => NodeOptions = () => ({}),
    databaseUrl: (url: string) => string = (url) => url,
  ): Promise<DaemonHarness[]> {
    this.provider.reset();
    this.provider.script = () => text("ok");
    this.#lease = lease;
    this.#schema = await createPgSchema("skein_cluster", this.serverUrl);
    this.#databaseUrl = databaseUrl(this.#schema.url);
    for (let i = 0; i < count; i++) await this.add(perNode(i));
    return this.nodes;
  }

  #databaseUrl = "";

  /** One more node of this cluster; its start's failure is thrown (its log in the message). */
  async add(options: NodeOptions = {}): Promise<DaemonHarness> {
    const node = await DaemonHarness.start({
      providers: profileFor(this.provider),
      env: {
        SKEIN_DB: this.#databaseUrl,
        SKEIN_TOKEN: this.token,
        SKEIN_LEASE_SECONDS: String(this.#lease),
        ...options.env,
      },
      signingKeyPem: options.signingKeyPem ?? this.signingKeyPem,
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.address === undefined ? {} : { address: options.address }),
      ...(options.launcher === undefined ? {} : { launcher: options.launcher }),
    });
    this.nodes.push(node);
    return node;
  }

  /** The node holding a live lease on the session, or null. */
  async ownerOf(sessionId: string): Promise<string | null> {
    const rows = await this.schema.query<{ node_id: string }>(
      "SELECT node_id FROM session_leases WHERE session = $1 AND expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint",
      [sessionId],
    );
    return rows[0]?.node_id ?? null;
  }

  /** A node's id (its instance id). */
  async nodeIdOf(node: DaemonHarness): Promise<string> {
    return (await node.api("/server")).json<{ instance_id: string }>().instance_id;
  }

  /** Stop every node and drop the schema. */
  async close(): Promise<void> {
    for (const node of this.nodes) await node.close();
    this.nodes = [];
    await this.#schema?.drop();
    this.#schema = null;
  }
}
