/**
 * Named tokens on a cluster (two real daemons on one PostgreSQL schema): a token made on one node
 * works on the other, a revocation on one node is refused by the other on its very next request
 * (tokens are read from the database on each request), and so is a paired device's cookie; and an
 * approval answered on a node that does not own the session is recorded with the sender's token
 * name and address (the relay carries them to the owner).
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { useTestClusters } from "./support/cluster-scope.js";
import { rawRequest } from "./support/daemon-harness.js";
import { eventually } from "./support/fixture.js";

describe("named tokens on a cluster", () => {
  const clusters = useTestClusters();

  it("a token or device made on one node works on the other, and its revocation holds there on the next request", async () => {
    const [a, b] = await clusters.cluster().start(2, 2);
    const created = await a!.api("/tokens", { method: "POST", body: { name: "roaming", role: "viewer" } });
    expect(created.status, created.text).toBe(201);
    const auth = { authorization: `Bearer ${created.json<{ token: string }>().token}` };
    expect((await b!.api("/sessions", { headers: auth })).status).toBe(200);
    expect((await a!.api("/tokens/roaming", { method: "DELETE" })).status).toBe(200);
    const refused = await b!.api("/sessions", { headers: auth });
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: "authentication_required" });

    // A device paired through node a signs its browser in on node b too (behind one public
    // address the cookie's name is the same everywhere; here each node's port names it), and
    // its revocation on a refuses the cookie on b at its next request.
    const pairing = await a!.api("/devices", { method: "POST", body: { name: "roaming-phone" } });
    expect(pairing.status, pairing.text).toBe(201);
    const link = new URL(pairing.json<{ pairing_url: string }>().pairing_url);
    const paired = await rawRequest(a!.port, {
      method: "POST",
      path: link.pathname + link.search,
      headers: {},
    });
    expect(paired.status).toBe(303);
    const secret = String(paired.headers["set-cookie"]).split(";")[0]!.split("=")[1]!;
    const onB = () =>
      rawRequest(b!.port, {
        method: "GET",
        path: "/sessions",
        headers: { cookie: `skein_session_${b!.port}=${secret}` },
      });
    expect((await onB()).status).toBe(200);
    expect((await b!.api("/devices/roaming-phone", { method: "DELETE" })).status).toBe(200);
    expect((await onB()).status).toBe(401);
  });

  it("records who answered an approval and from where when another node relays the answer", async () => {
    const cluster = clusters.cluster();
    // Long leases: the test needs a to keep the session throughout (b must relay, not take it
    // over), and with 2 s leases a loaded machine could stall a past its renewal.
    const [a, b] = await cluster.start(2, 15);
    clusters.provider.script = () => text("done");
    clusters.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_relay" }]),
      text("done"),
    );
    const sessionId = await a!.createSession();
    // The nodes' config allows every tool: this session asks instead.
    const policy = await a!.api(`/sessions/${sessionId}/approval-policy`, {
      method: "PUT",
      body: { approval_policy: { default: "ask" } },
    });
    expect(policy.status, policy.text).toBe(200);
    await a!.prompt(sessionId, "run it", uuidv7());
    await eventually("the call waits", async () => {
      const snapshot = (await a!.api(`/sessions/${sessionId}?tail=0`)).json<{
        pending_approvals: unknown[];
      }>();
      return snapshot.pending_approvals.length === 1 ? true : undefined;
    });
    const created = await b!.api("/tokens", { method: "POST", body: { name: "pager", role: "approver" } });
    const answered = await b!.api(`/sessions/${sessionId}/approvals/call_relay`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.json<{ token: string }>().token}` },
      body: { decision: "allow" },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(await cluster.ownerOf(sessionId)).toBe(await cluster.nodeIdOf(a!));
    expect(answered.json()).toMatchObject({ answered_by: "pager", answered_from: "127.0.0.1" });
  });
});
