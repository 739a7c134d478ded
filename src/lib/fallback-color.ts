/**
 * The background colour of an object without an image, derived from its id: a hue from the id's
 * FNV-1a hash (cheap: it runs for every row served) at fixed saturation and lightness, so every
 * colour is readable under white initials.
 */
export function fallbackColorFor(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  const hue = (hash >>> 0) % 360;
  const s = 0.55;
  const l = 0.45;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
