/** Whether one absolute path lies inside another, by path text alone. */
import path from "node:path";

/** True when `candidate` is `root` itself or lies below it (both absolute and normalized). */
export function isInsideDirectory(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
