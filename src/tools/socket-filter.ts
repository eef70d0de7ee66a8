/**
 * The seccomp filter that keeps a sandboxed command away from the host's local services: a
 * classic-BPF program, built here as bytes and handed to bubblewrap (`--seccomp FD`).
 *
 * Why: the sandbox sees the host filesystem read-only, but a read-only mount does not stop
 * `connect()` to a Unix socket found there (PostgreSQL, MySQL, Docker, agents in a home
 * directory). seccomp cannot read connect()'s address (it lives in user memory), but it can
 * read socket()'s address family, so the filter lets `socket()` create only the families that
 * stay inside the sandbox's own, empty network namespace (IPv4, IPv6, netlink) and fails every
 * other family, AF_UNIX first of all, with EACCES. `socketpair()` stays allowed: its two ends
 * are connected to each other and reach nothing else. io_uring is refused (EPERM) because its
 * operations, socket creation included, bypass seccomp. Only the host's native system-call ABI
 * is allowed: a system call made through another ABI (x86-64's x32 numbers, or i386's
 * `int 0x80` whose `socketcall` hides the family in user memory) kills the process.
 *
 * Boundary rule: this file knows system-call numbers and the BPF encoding, nothing about
 * bubblewrap or the tools; an architecture it has no table for gets no filter, and says so.
 */
import { unreachable } from "../model/unreachable.js";

/** The filter for the host's architecture, or why there is none. */
export type SocketFilter =
  | { kind: "filter"; architecture: string; program: Buffer }
  | { kind: "unsupported"; architecture: string; reason: string };

/** What the filter needs to know about one architecture's native system-call ABI. */
interface ArchitectureTable {
  /** AUDIT_ARCH_* value the kernel puts in seccomp_data.arch for this ABI. */
  auditArch: number;
  /** System calls whose number has this bit set belong to another ABI (x86-64's x32); 0 if none. */
  foreignAbiBit: number;
  socket: number;
  ioUringSetup: number;
  ioUringEnter: number;
  ioUringRegister: number;
}

/** Native ABIs, by Node's `process.arch` name. aarch64 uses the generic numbers (asm-generic/unistd.h). */
const ARCHITECTURES: Readonly<Record<string, ArchitectureTable>> = {
  x64: {
    auditArch: 0xc000003e, // AUDIT_ARCH_X86_64
    foreignAbiBit: 0x40000000, // __X32_SYSCALL_BIT
    socket: 41,
    ioUringSetup: 425,
    ioUringEnter: 426,
    ioUringRegister: 427,
  },
  arm64: {
    auditArch: 0xc00000b7, // AUDIT_ARCH_AARCH64
    foreignAbiBit: 0,
    socket: 198,
    ioUringSetup: 425,
    ioUringEnter: 426,
    ioUringRegister: 427,
  },
};

/** Address families `socket()` may create inside the sandbox (all confined by its network namespace). */
export const ALLOWED_SOCKET_FAMILIES: Readonly<Record<string, number>> = {
  AF_INET: 2,
  AF_INET6: 10,
  AF_NETLINK: 16,
};

const EACCES = 13;
const EPERM = 1;

// Classic BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const BPF_LD_W_ABS = 0x00 | 0x00 | 0x20; // BPF_LD | BPF_W | BPF_ABS: A = 32-bit word at offset k
const BPF_JMP_JEQ_K = 0x05 | 0x10 | 0x00; // BPF_JMP | BPF_JEQ | BPF_K: A == k ? jt : jf
const BPF_JMP_JGE_K = 0x05 | 0x30 | 0x00; // BPF_JMP | BPF_JGE | BPF_K: A >= k ? jt : jf
const BPF_RET_K = 0x06 | 0x00; // BPF_RET | BPF_K: return k
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

// Offsets in struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }.
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** args[0]'s low 32 bits on a little-endian machine; socket()'s `int domain` is exactly those. */
const OFFSET_ARG0_LOW = 16;

/** One instruction before jump targets are resolved: jumps name labels. */
type Instruction =
  | { op: "load"; offset: number }
  | { op: "jump_if_equal" | "jump_if_at_least"; value: number; ifTrue: Label; ifFalse: Label }
  | { op: "return"; value: number }
  | { op: "label"; name: Label };

type Label =
  | "native"
  | "kill"
  | "allow"
  | "deny_socket"
  | "deny_io_uring"
  | "socket_family"
  | `next_${number}`;

/** The filter for `architecture` (Node's `process.arch` name; default the running process's). */
export function socketFilterFor(architecture: string = process.arch): SocketFilter {
  const table = ARCHITECTURES[architecture];
  if (table === undefined) {
    return {
      kind: "unsupported",
      architecture,
      reason: `no seccomp socket filter is defined for the ${architecture} architecture`,
    };
  }
  return { kind: "filter", architecture, program: assemble(filterInstructions(table)) };
}

/** The filter's instructions for one architecture, in order; each says what it checks. */
function filterInstructions(table: ArchitectureTable): Instruction[] {
  let nextLabel = 0;
  const next = (): Label => `next_${nextLabel++}`;
  const program: Instruction[] = [
    // A = seccomp_data.arch: which ABI the call came through.
    { op: "load", offset: OFFSET_ARCH },
    // Another ABI (i386 on x86-64, arm32 on aarch64) uses other numbers: kill the process.
    { op: "jump_if_equal", value: table.auditArch, ifTrue: "native", ifFalse: "kill" },
    { op: "label", name: "native" },
    // A = seccomp_data.nr: the system call number.
    { op: "load", offset: OFFSET_NR },
  ];
  if (table.foreignAbiBit !== 0) {
    // x32 calls share AUDIT_ARCH_X86_64 but carry this bit; every such number is at least the bit.
    const native = next();
    program.push(
      { op: "jump_if_at_least", value: table.foreignAbiBit, ifTrue: "kill", ifFalse: native },
      { op: "label", name: native },
    );
  }
  for (const number of [table.ioUringSetup, table.ioUringEnter, table.ioUringRegister]) {
    // io_uring would run socket() and connect() on the kernel's side, unseen by this filter.
    const notThis = next();
    program.push(
      { op: "jump_if_equal", value: number, ifTrue: "deny_io_uring", ifFalse: notThis },
      { op: "label", name: notThis },
    );
  }
  program.push(
    // Every call but socket() is allowed from here on.
    { op: "jump_if_equal", value: table.socket, ifTrue: "socket_family", ifFalse: "allow" },
    { op: "label", name: "socket_family" },
    // A = socket()'s first argument, the address family.
    { op: "load", offset: OFFSET_ARG0_LOW },
  );
  for (const family of Object.values(ALLOWED_SOCKET_FAMILIES)) {
    const notThis = next();
    program.push(
      { op: "jump_if_equal", value: family, ifTrue: "allow", ifFalse: notThis },
      { op: "label", name: notThis },
    );
  }
  program.push(
    // Any other family (AF_UNIX, AF_VSOCK, ...): socket() fails with EACCES.
    { op: "label", name: "deny_socket" },
    { op: "return", value: SECCOMP_RET_ERRNO | EACCES },
    { op: "label", name: "deny_io_uring" },
    { op: "return", value: SECCOMP_RET_ERRNO | EPERM },
    { op: "label", name: "kill" },
    { op: "return", value: SECCOMP_RET_KILL_PROCESS },
    { op: "label", name: "allow" },
    { op: "return", value: SECCOMP_RET_ALLOW },
  );
  return program;
}

/**
 * Encodes instructions as an array of `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`
 * in the host's byte order (little-endian on both supported architectures). Jumps are relative
 * to the next instruction and may only go forward, at most 255 instructions.
 */
function assemble(instructions: readonly Instruction[]): Buffer {
  const positions = new Map<Label, number>();
  let count = 0;
  for (const instruction of instructions) {
    if (instruction.op === "label") positions.set(instruction.name, count);
    else count++;
  }
  const program = Buffer.alloc(count * 8);
  let at = 0;
  const jump = (label: Label): number => {
    const target = positions.get(label);
    const distance = target === undefined ? -1 : target - (at + 1);
    if (distance < 0 || distance > 255) throw new Error(`seccomp filter: cannot jump from ${at} to ${label}`);
    return distance;
  };
  const emit = (code: number, jt: number, jf: number, k: number) => {
    program.writeUInt16LE(code, at * 8);
    program.writeUInt8(jt, at * 8 + 2);
    program.writeUInt8(jf, at * 8 + 3);
    program.writeUInt32LE(k >>> 0, at * 8 + 4);
    at++;
  };
  for (const instruction of instructions) {
    switch (instruction.op) {
      case "label":
        break;
      case "load":
        emit(BPF_LD_W_ABS, 0, 0, instruction.offset);
        break;
      case "jump_if_equal":
      case "jump_if_at_least":
        emit(
          instruction.op === "jump_if_equal" ? BPF_JMP_JEQ_K : BPF_JMP_JGE_K,
          jump(instruction.ifTrue),
          jump(instruction.ifFalse),
          instruction.value,
        );
        break;
      case "return":
        emit(BPF_RET_K, 0, 0, instruction.value);
        break;
      default:
        unreachable(instruction, "unknown instruction");
    }
  }
  return program;
}
