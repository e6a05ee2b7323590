/** Colours derived from the site's accent that keep every text at WCAG AA (4.5:1), whatever the
 * accent: links darkened on light backgrounds and lightened on dark ones, and the text on accent
 * buttons and bubbles white or near-black, whichever reads. */

export type RGB = [number, number, number];

export const AA = 4.5;

export function parseHex(color: string): RGB | null {
  const hex = color.trim().replace(/^#/, "");
  if (!/^([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(hex)) return null;
  const full = hex.length <= 4 ? [...hex].map((c) => c + c).join("") : hex;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as RGB;
}

export function toHex(color: RGB): string {
  return `#${color.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
}

function luminance([r, g, b]: RGB): number {
  const linear = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

export function contrast(a: RGB, b: RGB): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

function mix(color: RGB, toward: RGB, share: number): RGB {
  return color.map((c, i) => c + (toward[i] - c) * share) as RGB;
}

/** `color`, moved toward black or white no further than needed to read on every background. */
export function readableOn(color: RGB, backgrounds: RGB[], toward: "black" | "white"): RGB {
  const end: RGB = toward === "black" ? [0, 0, 0] : [255, 255, 255];
  for (let share = 0; share < 1; share += 0.02) {
    const candidate = mix(color, end, share);
    if (backgrounds.every((background) => contrast(candidate, background) >= AA)) return candidate;
  }
  return end;
}

/** For text on the accent: the accent itself with white or near-black text when either reads,
 * else the accent darkened until white does. */
export function onAccent(accent: RGB, dark: RGB): { background: RGB; text: RGB } {
  const white: RGB = [255, 255, 255];
  if (contrast(white, accent) >= AA) return { background: accent, text: white };
  if (contrast(dark, accent) >= AA) return { background: accent, text: dark };
  return { background: readableOn(accent, [white], "black"), text: white };
}
