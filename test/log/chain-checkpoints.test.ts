import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChainCheckpoints } from "../../src/log/chain-checkpoints.js";

const point = (position: number) => ({ position, hash: `h${position}` });
const log = (length: number) => Array.from({ length }, (_, i) => point(i));

describe("verified-prefix checkpoints", () => {
  it("keep one point per spacing and the head, and anchor a position on the nearest point at or after it", () => {
    const checkpoints = ChainCheckpoints.ofVerified(log(10), 4);
    expect(checkpoints.size).toBe(2);
    const view = checkpoints.view();
    expect(view.head).toEqual(point(9));
    expect(view.anchorFor(0)).toEqual(point(3));
    expect(view.anchorFor(3)).toEqual(point(3));
    expect(view.anchorFor(4)).toEqual(point(7));
    expect(view.anchorFor(8)).toEqual(point(9));
    expect(view.anchorFor(10)).toBeNull();
  });

  it("advance with every commit; a view taken earlier keeps its head", () => {
    const checkpoints = ChainCheckpoints.ofVerified(log(2), 4);
    const before = checkpoints.view();
    for (const position of [3, 5, 6, 9]) checkpoints.advance(point(position));
    expect(before.head).toEqual(point(1));
    expect(before.anchorFor(1)).toEqual(point(1));
    expect(before.anchorFor(2)).toBeNull();
    const after = checkpoints.view();
    expect(after.head).toEqual(point(9));
    expect(after.anchorFor(2)).toEqual(point(3));
    expect(after.anchorFor(4)).toEqual(point(9));
    expect(() => checkpoints.advance(point(9))).toThrow(RangeError);
  });

  it("of an empty log anchor nothing until the first commit", () => {
    const checkpoints = ChainCheckpoints.ofVerified([]);
    expect(checkpoints.view().anchorFor(0)).toBeNull();
    checkpoints.advance(point(0));
    expect(checkpoints.view().anchorFor(0)).toEqual(point(0));
    expect(() => new ChainCheckpoints(0)).toThrow(RangeError);
  });

  it("anchor every position at most a spacing plus one commit past it (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (initial, commits, spacing) => {
          const checkpoints = ChainCheckpoints.ofVerified(log(initial), spacing);
          let head = initial - 1;
          for (const size of commits) {
            head += size;
            checkpoints.advance(point(head));
          }
          const view = checkpoints.view();
          const biggest = Math.max(1, ...commits);
          for (let position = 0; position <= head; position++) {
            const anchor = view.anchorFor(position)!;
            expect(anchor.position).toBeGreaterThanOrEqual(position);
            expect(anchor.position - position).toBeLessThan(spacing + biggest);
            expect(anchor.hash).toBe(`h${anchor.position}`);
          }
          expect(checkpoints.size).toBeLessThanOrEqual(Math.floor(head / spacing) + 1);
        },
      ),
    );
  });
});
