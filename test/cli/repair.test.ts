/**
 * `skein repair ID --from POSITION [--to POSITION]` end to end, against a real daemon and a
 * provider that refuses every request whose history holds one word: the failed `skein run`
 * says what to run, `skein repair` leaves the entry out, `skein show` marks it, and the next
 * turn goes through; a range the session does not have is refused and changes nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { httpError, text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

describe("skein repair", () => {
  const shared = useCliDaemon();

  beforeAll(() => {
    // A server whose content filter refuses any request that holds the word.
    shared.provider.script = (request) =>
      request.rawBody.includes("POISON")
        ? httpError(400, {
            body: JSON.stringify({
              error: { message: "prohibited content", type: "invalid_request_error", param: null },
            }),
          })
        : text("fine");
  });

  it("is what a refused run says to run, and lets the session take turns again", async () => {
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "a first question");
    const refused = await shared.cli.run(["run", "-s", id, "POISON"]);
    expect(refused.code).toBe(1);
    // The message being answered is never left out; the next turn's request holds it as history.
    const again = await shared.cli.run(["run", "-s", id, "and now?"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`skein repair ${id} --from POSITION`);
    expect(again.stderr).toContain(`skein show ${id.slice(0, 13)}`);
    expect(again.stderr).toContain("skein config test");
    const json = await shared.cli.run(["run", "-s", id, "--json", "hello"]);
    const result = JSON.parse(json.stdout.trim().split("\n").at(-1)!) as { exit_reason: string };
    expect(result.exit_reason).toBe("provider_refused");

    const history = await shared.daemon.history(id);
    const poisoned = history.items.find(
      (entry) => entry.kind === "user" && JSON.stringify(entry).includes("POISON"),
    )!;
    const repaired = await shared.cli.run(["repair", id.slice(0, 13), "--from", String(poisoned.position)]);
    expect(repaired.stderr).toBe("");
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain(`entry ${poisoned.position} left out of the model's context`);

    const show = await shared.cli.run(["show", id, "--no-pager"]);
    expect(show.stdout).toContain(`entry ${poisoned.position} left out of the model's context (repair)`);
    expect(show.stdout).toContain("POISON");

    const after = await shared.cli.run(["run", "-s", id, "hello again"]);
    expect(after.stderr).not.toContain("error");
    expect(after.code).toBe(0);
    expect(shared.provider.lastRequest.rawBody).not.toContain("POISON");
  });

  it("refuses a range the session does not have, and changes nothing", async () => {
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "one question");
    const before = await shared.daemon.history(id);
    for (const args of [
      ["--from", "0"],
      ["--from", "999"],
      ["--from", "3", "--to", "2"],
    ]) {
      const result = await shared.cli.run(["repair", id, ...args]);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toMatch(/not within|no item|must be >= 1/);
    }
    const garbage = await shared.cli.run(["repair", id, "--from", "two"]);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toContain("expected a whole number");
    expect(await shared.daemon.history(id)).toEqual(before);
  });
});
