/**
 * A phone paired as a device, in Debian's Chromium at 390 px wide against a real daemon and the
 * fake provider: the pairing link that `skein web --device` prints signs the phone's browser in
 * with the approver role; it answers an approval from its inbox and sees the turn go on (the
 * answer recorded as the device's); a second browser opening the same link is told it is spent;
 * and once `skein devices revoke` ran, the phone is signed out at its next request. An admin's
 * devices page pairs another (its QR code shown with no CSP error) and revokes it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import decodeQR from "qr/decode.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness, skeinBin } from "../e2e/support/daemon-harness.js";
import { profileFor } from "../e2e/support/fixture.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { launchChromium, loginLink, openLoginLink, screenshot } from "./support/browser.js";

const phoneSize = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
};

describe("a phone paired as a device, in Chromium", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const skein = (...args: string[]): string =>
    execFileSync(process.execPath, [skeinBin, "--home", app.home, ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: app.root, SKEIN_NO_AUTOSTART: "1" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  const phone = async () => {
    const context = await browser.newContext(phoneSize);
    contexts.push(context);
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    return { tab, errors };
  };

  beforeAll(async () => {
    provider = await FakeProvider.start();
    app = await DaemonHarness.start({ providers: profileFor(provider) });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  it("signs in through the pairing link, answers an approval, sees the turn go on, and is signed out when revoked", async () => {
    const link = skein("web", "--device", "phone").split("\n")[0]!;
    const { tab, errors } = await phone();
    await tab.goto(link);
    await tab.getByRole("button", { name: "Pair this browser" }).click();
    await tab.getByTestId("session-list").waitFor();
    expect(new URL(tab.url()).pathname).toBe("/");

    const asking = await app.createSession({ name: "asks the phone", approval_policy: { default: "ask" } });
    provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "paired.txt", content: "allowed\n" }, id: "call_paired" },
      ]),
      text("written after the paired phone said yes"),
    );
    await app.prompt(asking, "write paired.txt, asking first");
    const card = tab.locator(`[data-testid="approvals-inbox"] [data-call-id="call_paired"]`);
    await card.waitFor();
    await screenshot(tab, "device-phone-inbox");
    await card.getByRole("button", { name: "Allow" }).tap();
    await tab.goto(`${new URL(link).origin}/#/sessions/${asking}`);
    await tab
      .locator('[data-kind="assistant"]', { hasText: "written after the paired phone said yes" })
      .waitFor();
    await tab.locator('[data-testid="status"]', { hasText: "idle" }).waitFor();
    await screenshot(tab, "device-phone-turn-went-on");
    expect(readFileSync(join(app.workspace, "paired.txt"), "utf8")).toBe("allowed\n");
    // The same decision again answers the recorded one: who gave it.
    const recorded = await app.api(`/sessions/${asking}/approvals/call_paired`, {
      method: "POST",
      body: { decision: "allow" },
    });
    expect(recorded.json()).toMatchObject({ decision: "allow", answered_by: "phone" });

    const other = await phone();
    await other.tab.goto(link);
    await other.tab.getByRole("button", { name: "Pair this browser" }).click();
    await other.tab.getByText("This pairing link does not work").waitFor();
    expect(skein("devices")).toMatch(/^phone {2}approver {2}every session {2}created .* paired /);

    expect(skein("devices", "revoke", "phone")).toBe("revoked device phone\n");
    await tab.reload();
    await tab.getByTestId("signed-out").waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it("pairs a device from the admin's devices page, its QR code shown under the page's CSP, and revokes it there", async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    contexts.push(context);
    const admin = await context.newPage();
    const consoleErrors: string[] = [];
    admin.on("console", (message) => message.type() === "error" && consoleErrors.push(message.text()));
    admin.on("pageerror", (error) => consoleErrors.push(error.message));
    await openLoginLink(admin, loginLink(app.home, app.root));
    await admin.getByRole("link", { name: "Devices" }).click();
    await admin.getByTestId("devices-page").waitFor();
    await admin.getByLabel("Name").fill("tablet");
    await admin.getByLabel("Role").selectOption("viewer");
    await admin.getByRole("button", { name: "Pair" }).click();
    const qr = admin.getByTestId("pairing").locator("img.qr");
    await qr.waitFor();
    expect(
      await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    await admin.locator('[data-device="tablet"]', { hasText: "waiting for pairing" }).waitFor();
    await screenshot(admin, "devices-page-pairing");
    const link = (await admin.getByTestId("pairing-url").textContent()) ?? "";
    // What a camera would read: the image's pixels, decoded.
    const pixels = await qr.evaluate((image) => {
      const canvas = image.ownerDocument.createElement("canvas");
      canvas.width = 300;
      canvas.height = 300;
      const drawing = canvas.getContext("2d")!;
      drawing.fillStyle = "#fff";
      drawing.fillRect(0, 0, 300, 300);
      drawing.drawImage(image as unknown as Parameters<typeof drawing.drawImage>[0], 10, 10, 280, 280);
      return Array.from(drawing.getImageData(0, 0, 300, 300).data);
    });
    expect(decodeQR({ width: 300, height: 300, data: Uint8Array.from(pixels) }, { format: "RGBA" })).toBe(
      link,
    );

    const { tab, errors } = await phone();
    await tab.goto(link);
    await tab.getByRole("button", { name: "Pair this browser" }).click();
    await tab.getByTestId("session-list").waitFor();
    expect(await tab.getByRole("link", { name: "Devices" }).count()).toBe(0);
    await admin.reload();
    await admin.locator('[data-device="tablet"]', { hasText: "paired" }).waitFor();
    await admin.locator('[data-device="tablet"]').getByRole("button", { name: "Revoke" }).click();
    await admin.locator('[data-device="tablet"]').waitFor({ state: "detached" });
    await tab.reload();
    await tab.getByTestId("signed-out").waitFor();
    expect(errors).toEqual([]);
    await admin.waitForTimeout(200);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
