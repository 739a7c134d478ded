/**
 * The background colour of an object without an image, derived from its id: a hue from the id's
 * FNV-1a hash at fixed saturation and lightness, so every colour is readable under white initials.
 * It runs for every row served: the 360 colours are computed once.
 */
const SATURATION = 0.55;
const LIGHTNESS = 0.45;

function colorOfHue(hue: number): string {
  const a = SATURATION * Math.min(LIGHTNESS, 1 - LIGHTNESS);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = LIGHTNESS - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

const COLORS = Array.from({ length: 360 }, (_, hue) => colorOfHue(hue));

export function fallbackColorFor(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return COLORS[(hash >>> 0) % 360];
}
