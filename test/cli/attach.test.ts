/**
 * `skein attach` across daemon restarts: the follower reconnects with its cursor, prints one
 * notice per reset, and neither duplicates nor loses committed text.
 */
import { describe, expect, it } from "vitest";
import { deliver, deltas, text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually, occurrences } from "./support/cli-harness.js";

const notice = "reconnected: the daemon or session restarted";

describe("skein attach", () => {
  const shared = useCliDaemon();

  it("follows a session live and detaches on Ctrl-C with exit 0", async () => {
    shared.provider.script = () => text("Live answer streamed to the follower.");
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "earlier prompt");
    const attach = shared.cli.spawn(["attach", id.slice(0, 24)]);
    await eventually(
      () => attach.stdout().includes("Live answer streamed"),
      () => `history not shown: ${attach.stdout()} ${attach.stderr()}`,
    );
    shared.provider.script = () => text("A second, live answer.");
    await shared.daemon.turn(id, "a live prompt");
    await eventually(
      () => attach.stdout().includes("A second, live answer."),
      () => `live turn not shown: ${attach.stdout()}`,
    );
    expect(attach.stdout()).toContain("› a live prompt");
    attach.child.kill("SIGINT");
    const result = await attach.exited;
    expect(result.code).toBe(0);
    expect(occurrences(result.stdout, "A second, live answer.")).toBe(1);
    expect(occurrences(result.stdout, "Live answer streamed to the follower.")).toBe(1);
  });

  it("survives a graceful restart and a crash of the daemon without duplicated or lost text", async () => {
    shared.provider.script = () => text("Alpha answer before any restart.");
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "alpha prompt");
    const attach = shared.cli.spawn(["attach", id]);
    await eventually(
      () => attach.stdout().includes("Alpha answer before any restart."),
      () => `history not shown: ${attach.stdout()} ${attach.stderr()}`,
    );

    // 1. A graceful restart while idle: a notice, nothing reprinted.
    await shared.daemon.restart({ crash: false });
    await eventually(
      () => occurrences(attach.stdout(), notice) === 1,
      () => `no reconnect notice: ${attach.stdout()} ${attach.stderr()}`,
    );
    shared.provider.script = () => text("Beta answer after the graceful restart.");
    await shared.daemon.turn(id, "beta prompt");
    await eventually(
      () => attach.stdout().includes("Beta answer after the graceful restart."),
      () => `beta turn not shown: ${attach.stdout()}`,
    );

    // 2. A crash in the middle of a streamed turn: the recovery turn's answer appears once.
    shared.provider.script = () => deliver(deltas(200, "gamma "), { delayMs: 20 });
    await shared.daemon.prompt(id, "gamma prompt");
    await eventually(
      () => occurrences(attach.stdout(), "gamma ") >= 5,
      () => `gamma deltas not shown: ${attach.stdout()}`,
    );
    shared.provider.script = () => text("Delta answer from the recovery turn.");
    await shared.daemon.restart({ crash: true });
    await eventually(
      () => attach.stdout().includes("Delta answer from the recovery turn."),
      () => `recovery turn not shown: ${attach.stdout()} ${attach.stderr()}`,
      15_000,
    );
    await shared.daemon.idle(id);

    attach.child.kill("SIGINT");
    const result = await attach.exited;
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(occurrences(out, notice)).toBe(2);
    // Only the crash cut off streamed text that was never saved; its notice says so.
    expect(occurrences(out, "the unsaved end of the output above was dropped")).toBe(1);
    expect(occurrences(out, "Alpha answer before any restart.")).toBe(1);
    expect(occurrences(out, "Beta answer after the graceful restart.")).toBe(1);
    expect(occurrences(out, "Delta answer from the recovery turn.")).toBe(1);
    expect(occurrences(out, "› beta prompt")).toBe(1);
    expect(occurrences(out, "› gamma prompt")).toBe(1);
    // The daemon's restart note reached the follower too.
    expect(out).toContain("note: [Skein] The daemon restarted");
    // Everything shown follows the durable history, in order.
    const order = [
      "Alpha answer",
      "› beta prompt",
      "Beta answer",
      "› gamma prompt",
      "gamma",
      "Delta answer",
    ].map((needle) => out.indexOf(needle));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }, 60_000);

  it("leaves with --until-idle once the session has nothing to do", async () => {
    shared.provider.script = () => text("done");
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "one");
    const result = await shared.cli.run(["attach", id, "--until-idle"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("done");
  });

  it("exits 4 for a session that is deleted while attached", async () => {
    shared.provider.script = () => text("soon gone");
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "to be deleted");
    const attach = shared.cli.spawn(["attach", id]);
    await eventually(
      () => attach.stdout().includes("soon gone"),
      () => attach.stdout(),
    );
    await shared.daemon.api(`/sessions/${id}`, { method: "DELETE" });
    const result = await attach.exited;
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("not found");
  });
});
