/**
 * Relays over TLS: a node whose SKEIN_NODE_URL is https:// sits behind a TLS terminator (as an
 * operator would put one in front of it), and the other nodes relay to it over TLS, verifying its
 * certificate: a node that trusts the certificate's issuer (NODE_EXTRA_CA_CERTS) relays, one that
 * does not refuses to send the token there and answers 503 with Retry-After.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { createServer, type Server } from "node:tls";
import { fileURLToPath } from "node:url";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeProvider } from "../support/fake-provider/server.js";
import { freePort } from "../support/free-port.js";
import { eventually } from "./support/fixture.js";
import { TestCluster } from "./support/test-cluster.js";

const tlsDir = join(dirname(fileURLToPath(import.meta.url)), "support", "tls");
/** A self-signed certificate for localhost and 127.0.0.1, for this test only. */
const certPath = join(tlsDir, "localhost-cert.pem");

/** A TLS terminator on loopback that passes each connection on to `targetPort`. */
async function terminator(
  targetPort: number,
): Promise<{ server: Server; port: number; secured: () => number }> {
  let secured = 0;
  const server = createServer(
    { cert: readFileSync(certPath), key: readFileSync(join(tlsDir, "localhost-key.pem")) },
    (socket) => {
      secured++;
      const upstream = connect(targetPort, "127.0.0.1");
      socket.pipe(upstream).pipe(socket);
      socket.on("error", () => upstream.destroy());
      upstream.on("error", () => socket.destroy());
    },
  );
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no address");
  return { server, port: address.port, secured: () => secured };
}

describe("relays to an https:// node URL", () => {
  let provider: FakeProvider;
  let cluster: TestCluster;
  let tls: Awaited<ReturnType<typeof terminator>> | null = null;

  beforeAll(async () => {
    provider = await FakeProvider.start();
  });

  afterEach(async () => {
    await cluster?.close();
    await new Promise((done) => tls?.server.close(done));
  });

  afterAll(async () => {
    await provider?.close();
  });

  it("go over TLS to a node whose certificate verifies, and are refused where it does not", async () => {
    cluster = new TestCluster(provider);
    const bPort = await freePort("127.0.0.1");
    tls = await terminator(bPort);
    const trusting = { NODE_EXTRA_CA_CERTS: certPath };
    const [a] = await cluster.start(1, 2, () => ({ env: trusting }));
    const b = await cluster.add({
      env: { ...trusting, SKEIN_PORT: String(bPort), SKEIN_NODE_URL: `https://localhost:${tls.port}` },
    });
    const untrusting = await cluster.add();
    const sessionId = await b.createSession();
    const bId = await cluster.nodeIdOf(b);

    // A trusts the certificate's issuer: its relays to B go through the TLS terminator.
    const before = tls.secured();
    const watcher = await a!.openStream(sessionId);
    await watcher.next();
    const inputId = uuidv7();
    await a!.prompt(sessionId, "over TLS", inputId);
    await watcher.readUntil((event) => event.type === "turn_completed");
    watcher.close();
    expect((await a!.receipt(sessionId, inputId)).turn?.state).toBe("completed");
    expect(tls.secured()).toBeGreaterThan(before);
    expect(await cluster.ownerOf(sessionId)).toBe(bId);

    // The third node does not: it sends nothing to B and says why, and B keeps the session.
    const refused = await untrusting.api(`/sessions/${sessionId}?tail=0`);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.json<{ detail: string }>().detail).toMatch(/certificate/);
    expect(await cluster.ownerOf(sessionId)).toBe(bId);
    const untrustingId = await cluster.nodeIdOf(untrusting);
    await eventually("the refusal in GET /cluster", async () => {
      const listed = (await a!.api("/cluster")).json<{
        nodes: Array<{ id: string; last_error: { message: string } | null }>;
      }>();
      const error = listed.nodes.find((node) => node.id === untrustingId)?.last_error;
      return error?.message.includes("certificate") ? true : undefined;
    });
    // An https node URL is not warned about as clear text; the plain-http loopback ones are not either.
    expect(b.readLog()).not.toMatch(/plain http/);
  });
});
