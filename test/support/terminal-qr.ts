/**
 * Reading back a QR code that a terminal shows in block characters (qr's `ascii` output: a full
 * block is two light modules, a space two dark ones, `▀` light over dark, `▄` dark over light):
 * drawn as a picture and decoded by the same library's decoder, as a phone's camera would.
 *
 * Boundary rule: test support; pure.
 */
import decodeQR from "qr/decode.js";

const modulePixels = 4;

/** The text the QR code in `lines` encodes (throws when it cannot be read). */
export function decodeTerminalQr(lines: readonly string[]): string {
  const rows: boolean[][] = [];
  for (const line of lines) {
    const chars = [...line];
    rows.push(chars.map((char) => char === "█" || char === "▀"));
    rows.push(chars.map((char) => char === "█" || char === "▄"));
  }
  const margin = 4;
  const modules = Math.max(...rows.map((row) => row.length)) + 2 * margin;
  const size = (Math.max(modules, rows.length + 2 * margin) + 1) * modulePixels;
  const data = new Uint8Array(size * size * 3).fill(255);
  rows.forEach((row, y) => {
    row.forEach((light, x) => {
      if (light) return;
      for (let dy = 0; dy < modulePixels; dy += 1)
        for (let dx = 0; dx < modulePixels; dx += 1) {
          const offset = (((y + margin) * modulePixels + dy) * size + (x + margin) * modulePixels + dx) * 3;
          data.fill(0, offset, offset + 3);
        }
    });
  });
  return decodeQR({ width: size, height: size, data }, { format: "RGB" });
}
