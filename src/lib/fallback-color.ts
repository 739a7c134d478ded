import { createHash } from 'node:crypto';

/**
 * The background colour of an object without an image, derived from its id: a hue from the id's hash
 * at fixed saturation and lightness, so every colour is readable under white initials.
 */
export function fallbackColorFor(id: string): string {
  const hue = createHash('sha256').update(id).digest().readUInt16BE(0) % 360;
  const s = 0.55;
  const l = 0.45;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255).toString(16).padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
