import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import { registerForwarding } from "../../../src/daemon/cluster/request-forwarding.js";
import { createHttpApp, type HttpApp } from "../../../src/daemon/http/create-http-app.js";
import { registerResource } from "../../../src/daemon/http/resource.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { keepConnectionErrors } from "../../../src/log/pg-connection-errors.js";
import { freePort } from "../../support/free-port.js";

const token = "test-token-0123456789abcdef";
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

let app: HttpApp | null = null;
let pool: pg.Pool | null = null;

afterEach(async () => {
  await app?.close();
  await pool?.end();
  app = null;
  pool = null;
});

describe("relaying requests while the database is down", () => {
  it("answers 503 with Retry-After when the lease lookup cannot reach the database", async () => {
    pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/test` });
    keepConnectionErrors(pool);
    const node = new ClusterNode(pool, {
      nodeId: uuidv7(),
      url: "http://127.0.0.1:1",
      leaseMs: 10_000,
      signer: HeadSigner.generate(),
      logger: quiet,
      adopt: async () => {},
      lost: () => {},
    });
    app = createHttpApp({ token, isDraining: () => false });
    registerForwarding(app, { node, token });
    registerResource(app, "/sessions/:id", { GET: { handler: async () => ({ served: "here" }) } });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };

    const response = await fetch(`http://127.0.0.1:${port}/sessions/${uuidv7()}`, {
      headers: { authorization: `Bearer ${token}` },
    });

    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(((await response.json()) as { code: string }).code).toBe("request_unavailable");
  });
});
