/**
 * Runs a seccomp classic-BPF program over one system call, as the kernel would, for the few
 * instructions the socket filter uses; anything else is an error. It lets tests check the
 * filter's decisions on an architecture this machine cannot run (aarch64 on x86-64).
 */

/** The `struct seccomp_data` fields the filter reads. */
export interface SystemCall {
  nr: number;
  arch: number;
  args?: readonly number[];
}

/** Executes `program` (an array of `struct sock_filter`) and returns the 32-bit verdict. */
export function runSeccompProgram(program: Buffer, call: SystemCall): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  for (const [index, value] of (call.args ?? []).entries())
    data.writeBigUInt64LE(BigInt(value), 16 + index * 8);
  let accumulator = 0;
  for (let pc = 0; pc * 8 < program.length; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // BPF_LD | BPF_W | BPF_ABS
        accumulator = data.readUInt32LE(k);
        pc += 1;
        break;
      case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
        pc += 1 + (accumulator === k ? jt : jf);
        break;
      case 0x35: // BPF_JMP | BPF_JGE | BPF_K
        pc += 1 + (accumulator >= k ? jt : jf);
        break;
      case 0x06: // BPF_RET | BPF_K
        return k;
      default:
        throw new Error(`unexpected BPF opcode 0x${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error("the program ran off its end without returning");
}
