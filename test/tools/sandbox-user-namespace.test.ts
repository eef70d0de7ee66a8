/**
 * The outbound-only network for a daemon that does not run as root: the pure parts, then
 * `run_command` run by a process of an unprivileged user (`nobody`), as a person's daemon runs it.
 */
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeNetworkHelper } from "../../src/tools/network-helper.js";
import { rootMapping, sandboxUserNamespace } from "../../src/tools/sandbox-user-namespace.js";
import { CheckoutView } from "../support/checkout-view.js";
import type { CommandReport, CommandRequest } from "../support/command-as-user.js";
import {
  canMakePeer,
  type HostListener,
  hostAddresses,
  listenOnEveryAddress,
  type PeerListener,
  startPeerListener,
} from "../support/host-listeners.js";
import { type ProbeReport, type ProbeRequest, writeProbeScript } from "../support/network-probe.mjs";
import { giveTree, type UnprivilegedUser, unprivilegedUser } from "../support/unprivileged-user.js";

describe("sandboxUserNamespace", () => {
  it("is none for a daemon run as root, and the daemon's own ids otherwise", () => {
    expect(sandboxUserNamespace(0, 0)).toBeNull();
    expect(sandboxUserNamespace(0, 1000)).toBeNull();
    expect(sandboxUserNamespace(1000, 100)).toEqual({ uid: 1000, gid: 100 });
    expect(sandboxUserNamespace(undefined, undefined)).toBeNull();
  });
});

describe("rootMapping", () => {
  it("maps exactly one outside id to root of the namespace", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xfffffffe }), (id) => {
        expect(rootMapping(id)).toBe(`0 ${id} 1\n`);
      }),
    );
  });

  it("refuses anything that is not a user or group id", () => {
    const notIds = fc.oneof(
      fc.integer({ max: -1 }),
      fc.integer({ min: 0xffffffff, max: Number.MAX_SAFE_INTEGER }),
      fc.double({ noInteger: true }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(notIds, (value) => {
        expect(() => rootMapping(value)).toThrow(RangeError);
      }),
    );
  });
});

const user = unprivilegedUser();
const helper = probeNetworkHelper();
const commandScript = fileURLToPath(new URL("../support/command-as-user.ts", import.meta.url));

describe.skipIf(user === null || !helper.usable || !canMakePeer())(
  "run_command with SKEIN_SANDBOX_NETWORK=1 in a daemon run as an unprivileged user",
  () => {
    const nobody = user as UnprivilegedUser;
    let view: CheckoutView;
    let workspace: string;
    let listener: HostListener;
    let peer: PeerListener;

    beforeAll(async () => {
      // The checkout may lie where nobody cannot enter (CI clones it into a 0700 directory).
      view = CheckoutView.open(nobody);
      workspace = await mkdtemp(path.join(tmpdir(), "skein-unprivileged-"));
      // A plain script run by node alone: the command's private /tmp may hide the checkout.
      writeProbeScript(workspace);
      giveTree(workspace, nobody);
      listener = await listenOnEveryAddress();
      peer = await startPeerListener();
    });
    afterAll(async () => {
      peer?.close();
      await listener?.close();
      if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
      view?.close();
    });

    /** Runs `command` through run_command in a process of `nobody`. */
    const runAsNobody = async (
      command: string,
      shell: CommandRequest["shell"] = "network",
      extra: Partial<CommandRequest> = {},
    ): Promise<CommandReport> => {
      const request: CommandRequest = { workspace, command, shell, ...extra };
      const stdout = await view.run(
        process.execPath,
        ["--import", "tsx", view.pathOf(commandScript), JSON.stringify(request)],
        { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace },
      );
      return JSON.parse(stdout) as CommandReport;
    };
    const probeAsNobody = async (request: ProbeRequest, shell: CommandRequest["shell"] = "network") => {
      const report = await runAsNobody(
        `${process.execPath} ./network-probe.mjs '${JSON.stringify(request)}'`,
        shell,
      );
      expect(report.output).toMatch(/^exit code: 0\n/);
      return JSON.parse(report.output.slice(report.output.indexOf("\n") + 1)) as ProbeReport;
    };

    it("offers the network: the daemon's shell has the outbound-only network", async () => {
      const report = await runAsNobody("true");
      expect(report.shell).toContain("it has an outbound-only network");
      expect(report.output).toBe("exit code: 0\n(no output)");
    }, 30_000);

    it("reaches a machine on the network, but no service of the host: not its addresses, loopback, slirp's gateway or DNS alias, link-local, nor its end of the link", async () => {
      const targets = [
        ...hostAddresses(),
        "127.0.0.1",
        "10.0.2.2",
        "10.0.2.3",
        "169.254.169.254",
        peer.hostAddress,
      ];
      const report = await probeAsNobody({
        tcp: [
          { host: peer.address, port: peer.port },
          ...targets.map((host) => ({ host, port: listener.port })),
        ],
      });
      expect(report.tcp[`${peer.address}:${peer.port}`]).toBe("open");
      for (const host of targets) {
        const key = `${host.includes(":") ? `[${host}]` : host}:${listener.port}`;
        expect(report.tcp[key], key).toMatch(/^(EACCES|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|timeout)$/);
      }
      // The same user's unconfined command reaches the listener on every host address: the probe can fail.
      const control = await probeAsNobody(
        { tcp: hostAddresses().map((host) => ({ host, port: listener.port })) },
        "unconfined",
      );
      for (const [target, outcome] of Object.entries(control.tcp)) expect(outcome, target).toBe("open");
    }, 60_000);

    it("holds no capability over its network: it cannot change the rules, not even from a user namespace of its own", async () => {
      const report = await runAsNobody(
        [
          "grep CapEff /proc/self/status",
          "ip rule del pref 100; echo rule=$?",
          "ip route del default; echo route=$?",
          // Every capability, in a user namespace of its own (a child of the one owning the network)...
          "unshare --user --keep-caps sh -c 'grep CapEff /proc/self/status; ip rule del pref 100; echo nested=$?'",
          // ...which does work on a network namespace of its own, so the line above can fail.
          "unshare --user --keep-caps --net sh -c 'ip link set lo up; echo own=$?'",
          "ip rule | grep -c prohibit",
        ].join("\n"),
      );
      expect(report.output).toMatch(/^exit code: 0\n/);
      const capabilities = [...report.output.matchAll(/^CapEff:\t([0-9a-f]+)$/gm)].map((match) => match[1]);
      expect(capabilities).toHaveLength(2);
      expect(capabilities[0]).toMatch(/^0+$/);
      expect(capabilities[1]).not.toMatch(/^0+$/);
      expect(report.output).toMatch(/rule=[1-9]/);
      expect(report.output).toMatch(/route=[1-9]/);
      expect(report.output).toMatch(/nested=[1-9]/);
      expect(report.output).toContain("own=0");
      // The link-local rule and one per host IPv4 address are all still there.
      const rules = Number(report.output.trim().split("\n").at(-1));
      expect(rules).toBe(1 + new Set(hostAddresses().filter((host) => !host.includes(":"))).size);
    }, 30_000);

    it("runs as root of its own user namespace: what it writes in the workspace belongs to the daemon's user", async () => {
      const report = await runAsNobody("id -u; echo made > made.txt");
      expect(report.output).toBe("exit code: 0\n0\n");
      const made = statSync(path.join(workspace, "made.txt"));
      expect([made.uid, made.gid]).toEqual([nobody.uid, nobody.gid]);
      expect(readFileSync(path.join(workspace, "made.txt"), "utf8")).toBe("made\n");
    }, 30_000);

    it("fails closed: when slirp4netns fails, the command never runs", async () => {
      const marker = path.join(workspace, "ran.txt");
      const report = await runAsNobody(`touch ${marker}`, "network", { slirp4netns: "/bin/false" });
      expect(report.output).toMatch(
        /^error: run_command: cannot start the command: slirp4netns exited \(1\)/,
      );
      expect(() => statSync(marker)).toThrow();
    }, 30_000);
  },
);
