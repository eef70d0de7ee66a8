/**
 * A small tmpfs filesystem the tests can fill up and free again, so the daemon meets a real
 * ENOSPC / SQLITE_FULL from the kernel instead of a simulated one. Mounting needs root (CI runs
 * as root); where it is impossible, `SmallDisk.mount` returns the reason and the suite skips
 * with it.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export class SmallDisk {
  private constructor(readonly path: string) {}

  /** Mount a tmpfs of `sizeBytes` on a fresh directory; a string is the reason it could not. */
  static mount(sizeBytes: number): SmallDisk | string {
    const path = mkdtempSync(join(tmpdir(), "skein-small-disk-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes},mode=0700`, "tmpfs", path], {
        stdio: "pipe",
      });
    } catch (error) {
      rmSync(path, { recursive: true, force: true });
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      return `cannot mount a tmpfs here (${stderr || String(error)}); run as root to test a full disk`;
    }
    return new SmallDisk(path);
  }

  get fillerPath(): string {
    return join(this.path, "filler");
  }

  /** Write a filler file until the filesystem answers ENOSPC. */
  fill(): void {
    const fd = openSync(this.fillerPath, "a");
    const block = Buffer.alloc(64 * 1024, 0x61);
    try {
      for (;;) {
        try {
          writeSync(fd, block);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw error;
        }
      }
      // The last partial block: fill the remaining bytes one small write at a time.
      const small = Buffer.alloc(512, 0x61);
      for (;;) {
        try {
          writeSync(fd, small);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw error;
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Remove the filler: the space is free again. */
  free(): void {
    rmSync(this.fillerPath, { force: true });
  }

  /** Remove everything on the disk (between tests, once their daemons are gone): all its space is free. */
  clear(): void {
    for (const name of readdirSync(this.path))
      rmSync(join(this.path, name), { recursive: true, force: true });
  }

  /** Unmount and remove the directory. */
  unmount(): void {
    try {
      execFileSync("umount", ["-l", this.path], { stdio: "pipe" });
    } finally {
      rmSync(this.path, { recursive: true, force: true });
    }
  }
}
