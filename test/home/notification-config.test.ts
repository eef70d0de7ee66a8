/** config.json's `notifications` section: what it accepts, each refusal named (a property test over junk). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notificationEvents } from "../../src/home/notification-config.js";
import { ProviderConfigError, parseProviderConfig } from "../../src/home/provider-config.js";

const parse = (notifications: unknown) =>
  parseProviderConfig(JSON.stringify({ providers: {}, notifications }), "/h/config.json").notifications;

const good = { url: "https://hooks.example.com/skein", events: ["turn_completed"], secret: "k" };

describe("the notifications section of config.json", () => {
  it("takes webhooks with a URL, events and a secret, allowPrivate optional, events deduplicated", () => {
    expect(parse([good])).toEqual([good]);
    expect(
      parse([
        {
          ...good,
          url: "http://10.0.0.5:8080/x",
          events: [...notificationEvents, "question"],
          allowPrivate: true,
        },
      ]),
    ).toEqual([
      { ...good, url: "http://10.0.0.5:8080/x", events: [...notificationEvents], allowPrivate: true },
    ]);
    expect(parse([])).toEqual([]);
  });

  it("refuses bad URLs, unknown events and missing secrets, naming the entry", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /"notifications" must be an array/],
      [
        [{ ...good, url: "ftp://example.com/x" }],
        /"notifications\[0\]\.url" must use http or https, not ftp/,
      ],
      [[{ ...good, url: "not a url" }], /"notifications\[0\]\.url" "not a url" is not a URL/],
      [[{ ...good, url: "https://user:pw@example.com/" }], /must not carry credentials/],
      [[{ ...good, url: 7 }], /"notifications\[0\]\.url" must be an http\(s\) URL/],
      [
        [good, { ...good, events: ["turn_exploded"] }],
        /"notifications\[1\]\.events" has unknown event "turn_exploded"/,
      ],
      [
        [{ ...good, events: [] }],
        /"notifications\[0\]\.events" must list at least one of approval_requested/,
      ],
      [[{ url: good.url, events: good.events }], /"notifications\[0\]\.secret" is missing/],
      [[{ ...good, secret: "" }], /"notifications\[0\]\.secret" is missing/],
      [[{ ...good, allowPrivate: "yes" }], /"notifications\[0\]\.allowPrivate" must be true or false/],
      [[{ ...good, format: "slack" }], /"notifications\[0\]" has unknown key "format"/],
      [[good, good], /"notifications\[1\]\.url" https:\/\/hooks\.example\.com\/skein is listed twice/],
    ];
    for (const [notifications, message] of cases)
      expect(() => parse(notifications), String(message)).toThrow(message);
  });

  it("either accepts a value as valid webhooks or refuses it with a ProviderConfigError", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          const targets = parse(value) ?? [];
          for (const target of targets) {
            expect(["http:", "https:"]).toContain(new URL(target.url).protocol);
            expect(target.secret.length).toBeGreaterThan(0);
            expect(target.events.length).toBeGreaterThan(0);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ProviderConfigError);
        }
      }),
    );
  });
});
