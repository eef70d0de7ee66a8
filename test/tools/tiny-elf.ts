/**
 * Minimal static x86-64 Linux executables built from raw machine code, for sandbox tests that
 * must make system calls no installed program makes (i386 `int 0x80` from a 64-bit process).
 */

const LOAD_ADDRESS = 0x400000;
const ELF_HEADER_BYTES = 64;
const PROGRAM_HEADER_BYTES = 56;

/** An ELF64 executable with one read+execute segment holding `code`, entered at its first byte. */
function x86_64Executable(code: Buffer): Buffer {
  const codeOffset = ELF_HEADER_BYTES + PROGRAM_HEADER_BYTES;
  const total = codeOffset + code.length;
  const file = Buffer.alloc(total);
  // e_ident: magic, 64-bit, little-endian, version 1, System V ABI.
  file.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0);
  file.writeUInt16LE(2, 16); // e_type: ET_EXEC
  file.writeUInt16LE(0x3e, 18); // e_machine: EM_X86_64
  file.writeUInt32LE(1, 20); // e_version
  file.writeBigUInt64LE(BigInt(LOAD_ADDRESS + codeOffset), 24); // e_entry
  file.writeBigUInt64LE(BigInt(ELF_HEADER_BYTES), 32); // e_phoff
  file.writeBigUInt64LE(0n, 40); // e_shoff: no section headers
  file.writeUInt32LE(0, 48); // e_flags
  file.writeUInt16LE(ELF_HEADER_BYTES, 52); // e_ehsize
  file.writeUInt16LE(PROGRAM_HEADER_BYTES, 54); // e_phentsize
  file.writeUInt16LE(1, 56); // e_phnum
  // Program header: PT_LOAD of the whole file, readable and executable.
  const ph = ELF_HEADER_BYTES;
  file.writeUInt32LE(1, ph); // p_type: PT_LOAD
  file.writeUInt32LE(5, ph + 4); // p_flags: PF_R | PF_X
  file.writeBigUInt64LE(0n, ph + 8); // p_offset
  file.writeBigUInt64LE(BigInt(LOAD_ADDRESS), ph + 16); // p_vaddr
  file.writeBigUInt64LE(BigInt(LOAD_ADDRESS), ph + 24); // p_paddr
  file.writeBigUInt64LE(BigInt(total), ph + 32); // p_filesz
  file.writeBigUInt64LE(BigInt(total), ph + 40); // p_memsz
  file.writeBigUInt64LE(0x1000n, ph + 48); // p_align
  code.copy(file, codeOffset);
  return file;
}

/** `mov eax, imm32` */
const movEax = (value: number) => Buffer.from([0xb8, ...le32(value)]);
/** `mov edi, imm32` */
const movEdi = (value: number) => Buffer.from([0xbf, ...le32(value)]);
const syscall = Buffer.from([0x0f, 0x05]);
const int80 = Buffer.from([0xcd, 0x80]);

function le32(value: number): number[] {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value >>> 0);
  return [...bytes];
}

/** Code that exits with `status` through the native x86-64 `exit` system call (60). */
function exitWith(status: number): Buffer {
  return Buffer.concat([movEdi(status), movEax(60), syscall]);
}

/** The status the programs below exit with when the foreign call returned at all. */
export const SURVIVED_STATUS = 42;

/** A program that calls i386 `getpid` (20) through `int 0x80`, then exits with `SURVIVED_STATUS`. */
export function i386SyscallProgram(): Buffer {
  return x86_64Executable(Buffer.concat([movEax(20), int80, exitWith(SURVIVED_STATUS)]));
}

/** A program that calls x32 `getpid` (39 | 0x40000000) through `syscall`, then exits with `SURVIVED_STATUS`. */
export function x32SyscallProgram(): Buffer {
  return x86_64Executable(Buffer.concat([movEax(0x40000000 | 39), syscall, exitWith(SURVIVED_STATUS)]));
}
