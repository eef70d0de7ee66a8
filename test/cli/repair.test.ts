/**
 * `skein repair ID --from POSITION [--to POSITION]` end to end, against a real daemon and a
 * provider that refuses every request whose history holds one word: the failed `skein run`
 * says what to run, `skein repair` leaves the entry out, `skein show` marks it, and the next
 * turn goes through; a range the session does not have is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { httpError, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { CliSandbox, fakeProfile } from "./support/cli-harness.js";

describe("skein repair", () => {
  let provider: FakeProvider;
  let daemon: DaemonHarness;
  let cli: CliSandbox;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    // A server whose content filter refuses any request that holds the word.
    provider.script = (request) =>
      request.rawBody.includes("POISON")
        ? httpError(400, {
            body: JSON.stringify({
              error: { message: "prohibited content", type: "invalid_request_error", param: null },
            }),
          })
        : text("fine");
    daemon = await DaemonHarness.start({ providers: { fake: fakeProfile(provider.baseUrl) as never } });
    cli = new CliSandbox({ root: daemon.root, home: daemon.home, env: { SKEIN_NO_AUTOSTART: "1" } });
  });

  afterAll(async () => {
    await daemon.close();
    await provider.close();
  });

  it("is what a refused run says to run, and lets the session take turns again", async () => {
    const id = await daemon.createSession();
    await daemon.turn(id, "a first question");
    const refused = await cli.run(["run", "-s", id, "POISON"]);
    expect(refused.code).toBe(1);
    // The message being answered is never left out; the next turn's request holds it as history.
    const again = await cli.run(["run", "-s", id, "and now?"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`skein repair ${id} --from POSITION`);
    expect(again.stderr).toContain(`skein show ${id.slice(0, 13)}`);
    expect(again.stderr).toContain("skein config test");
    const json = await cli.run(["run", "-s", id, "--json", "hello"]);
    const result = JSON.parse(json.stdout.trim().split("\n").at(-1)!) as { exit_reason: string };
    expect(result.exit_reason).toBe("provider_refused");

    const history = await daemon.history(id);
    const poisoned = history.items.find(
      (entry) => entry.kind === "user" && JSON.stringify(entry).includes("POISON"),
    )!;
    const repaired = await cli.run(["repair", id.slice(0, 13), "--from", String(poisoned.position)]);
    expect(repaired.stderr).toBe("");
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain(`entry ${poisoned.position} left out of the model's context`);

    const show = await cli.run(["show", id, "--no-pager"]);
    expect(show.stdout).toContain(`entry ${poisoned.position} left out of the model's context (repair)`);
    expect(show.stdout).toContain("POISON");

    const after = await cli.run(["run", "-s", id, "hello again"]);
    expect(after.stderr).not.toContain("error");
    expect(after.code).toBe(0);
    expect(provider.lastRequest.rawBody).not.toContain("POISON");
  });

  it("refuses a range the session does not have, and changes nothing", async () => {
    const id = await daemon.createSession();
    await daemon.turn(id, "one question");
    const before = await daemon.history(id);
    for (const args of [
      ["--from", "0"],
      ["--from", "999"],
      ["--from", "3", "--to", "2"],
    ]) {
      const result = await cli.run(["repair", id, ...args]);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toMatch(/not within|no item|must be >= 1/);
    }
    const garbage = await cli.run(["repair", id, "--from", "two"]);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toContain("expected a whole number");
    expect(await daemon.history(id)).toEqual(before);
  });
});
