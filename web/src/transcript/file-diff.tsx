/** A file edit as a line diff: removed lines red, added lines green, unchanged context grey. */
import { diffLines } from "diff";
import { memo } from "react";

/** The diff of `before` → `after`. */
export const FileDiff = memo(function FileDiff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <pre className="diff">
      {parts.map((part, index) => {
        const sign = part.added ? "+" : part.removed ? "-" : " ";
        const lines = part.value.endsWith("\n")
          ? part.value.slice(0, -1).split("\n")
          : part.value.split("\n");
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff never reorder.
          <span key={index} className={part.added ? "diff-add" : part.removed ? "diff-del" : "diff-same"}>
            {lines.map((line) => `${sign} ${line}\n`).join("")}
          </span>
        );
      })}
    </pre>
  );
});
