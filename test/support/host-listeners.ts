/**
 * Services a sandbox must not reach, and one it may: a TCP listener on all of the host's
 * addresses (as a database bound to 0.0.0.0 is), the host's own addresses to try it on, and a
 * listener in another network namespace behind a veth pair, which stands for a machine on the
 * network (this machine has no internet to test outbound connections against).
 *
 * Boundary rule: test support; the peer needs root and `ip` (iproute2), and is removed by `close`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";

/** A listener on 0.0.0.0 and :: (every address of the host). */
export interface HostListener {
  port: number;
  close(): Promise<void>;
}

/** Listens on every host address (IPv4 and IPv6) on one free port. */
export async function listenOnEveryAddress(): Promise<HostListener> {
  const server: Server = createServer((socket) => {
    // The probes hang up at once: a reset is expected.
    socket.on("error", () => undefined);
    socket.end("host service\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "::", ipv6Only: false }, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the listener has no port");
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Every address of the host's interfaces (loopback, non-loopback, IPv4, IPv6 without link-local scope). */
export function hostAddresses(): string[] {
  const found: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      // A link-local IPv6 address needs a scope the sandbox's interface names differently.
      if (address.family === "IPv6" && address.address.toLowerCase().startsWith("fe80")) continue;
      found.push(address.address);
    }
  }
  return found;
}

/** A listener in a network namespace of its own, reached through a veth pair: another machine. */
export interface PeerListener {
  address: string;
  port: number;
  /** The host's end of the veth pair (a host address, so the sandbox may not reach it). */
  hostAddress: string;
  close(): void;
}

/** Whether a peer namespace can be made here (root with `ip`). */
export function canMakePeer(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Makes the peer namespace (in 198.51.100.0/24, a /30 chosen at random) with a TCP listener in it. */
export async function startPeerListener(): Promise<PeerListener> {
  const tag = randomBytes(3).toString("hex");
  const base = (randomBytes(1)[0]! % 64) * 4;
  const namespace = `skein-peer-${tag}`;
  const hostEnd = `skp${tag}h`;
  const peerEnd = `skp${tag}p`;
  const [hostAddress, address] = [`198.51.100.${base + 1}`, `198.51.100.${base + 2}`];
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
  ip("netns", "add", namespace);
  let listener: ChildProcess | null = null;
  const close = () => {
    listener?.kill("SIGKILL");
    for (const args of [
      ["link", "del", hostEnd],
      ["netns", "del", namespace],
    ]) {
      try {
        ip(...args);
      } catch {
        // Gone already.
      }
    }
  };
  try {
    ip("link", "add", hostEnd, "type", "veth", "peer", "name", peerEnd);
    ip("link", "set", peerEnd, "netns", namespace);
    ip("addr", "add", `${hostAddress}/30`, "dev", hostEnd);
    ip("link", "set", hostEnd, "up");
    ip("-n", namespace, "addr", "add", `${address}/30`, "dev", peerEnd);
    ip("-n", namespace, "link", "set", peerEnd, "up");
    ip("-n", namespace, "link", "set", "lo", "up");
    const script =
      "const s=require('net').createServer(c=>{c.on('error',()=>{});c.end('peer service\\n')});" +
      `s.listen(0,'${address}',()=>console.log(s.address().port))`;
    listener = spawn("ip", ["netns", "exec", namespace, process.execPath, "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number>((resolve, reject) => {
      listener?.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString("utf8").trim())));
      listener?.once("exit", (code) => reject(new Error(`the peer's listener exited (${String(code)})`)));
    });
    return { address, port, hostAddress, close };
  } catch (error) {
    close();
    throw error;
  }
}
