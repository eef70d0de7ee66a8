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

  it("keep the points of a range proven later at every spacing-th position, and anchor on them from then on", () => {
    // Restored from a state checkpoint at 40: nothing before it is known but the checkpoint itself.
    const checkpoints = ChainCheckpoints.ofVerified(log(50).slice(40), 4);
    const before = checkpoints.view();
    expect(before.anchorFor(5)).toEqual(point(40));
    expect(checkpoints.pointsOf(log(50).slice(5, 17)).map((kept) => kept.position)).toEqual([7, 11, 15]);
    checkpoints.learn(checkpoints.pointsOf(log(50).slice(5, 17)));
    const after = checkpoints.view();
    expect(after.anchorFor(5)).toEqual(point(7));
    expect(after.anchorFor(12)).toEqual(point(15));
    expect(after.anchorFor(16)).toEqual(point(40));
    // A view taken before keeps what it had; learning the same points again adds nothing.
    expect(before.anchorFor(5)).toEqual(point(40));
    const size = checkpoints.size;
    checkpoints.learn([point(7), point(11), { position: 11, hash: "other" }]);
    expect(checkpoints.size).toBe(size);
    expect(checkpoints.view().anchorFor(9)).toEqual(point(11));
  });

  it("learn no point at or past the head", () => {
    const checkpoints = ChainCheckpoints.ofVerified(log(10), 4);
    checkpoints.learn([point(9), point(12)]);
    expect(checkpoints.size).toBe(2);
    expect(checkpoints.view().anchorFor(8)).toEqual(point(9));
  });

  it("anchor every position on the nearest point known at or after it once learned, views taken before unchanged (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.nat(),
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.oneof(
            fc.record({ learn: fc.array(fc.nat({ max: 80 }), { maxLength: 12 }) }),
            fc.record({ advance: fc.integer({ min: 1, max: 6 }) }),
          ),
          { maxLength: 12 },
        ),
        (length, startSeed, spacing, steps) => {
          const start = startSeed % length;
          const checkpoints = ChainCheckpoints.ofVerified(log(length).slice(start), spacing);
          let head = length - 1;
          // What is known: the points it started with, the head, and what was learned below the head.
          const known = new Set<number>();
          for (let position = 0; position <= head; position++) {
            if (checkpoints.view().anchorFor(position)?.position === position) known.add(position);
          }
          const views: Array<{ view: ReturnType<ChainCheckpoints["view"]>; answers: Array<number | null> }> =
            [];
          const answersOf = (view: ReturnType<ChainCheckpoints["view"]>) =>
            Array.from({ length: 100 }, (_, position) => view.anchorFor(position)?.position ?? null);
          for (const step of steps) {
            if ("learn" in step) {
              checkpoints.learn(step.learn.map(point));
              for (const position of step.learn) if (position < head) known.add(position);
            } else {
              const previous = head;
              head += step.advance;
              checkpoints.advance(point(head));
              // The head passed is kept only a spacing after the last point (see "advance" above).
              if (checkpoints.view().anchorFor(previous)?.position !== previous) known.delete(previous);
            }
            known.add(head);
            const view = checkpoints.view();
            for (let position = 0; position <= head; position++) {
              const nearest = Math.min(...[...known].filter((kept) => kept >= position));
              const anchor = view.anchorFor(position)!;
              expect(anchor).toEqual(point(nearest));
            }
            views.push({ view, answers: answersOf(view) });
          }
          for (const { view, answers } of views) expect(answersOf(view)).toEqual(answers);
        },
      ),
    );
  });
});
