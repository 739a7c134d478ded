// Images for the tests of logos (and anything else that takes an image): PNGs drawn here, and a JPEG, a WebP and a GIF
// as Chromium's canvas encoded them (40 × 20: blue on the left half, amber on the right; the GIF is 1 × 1).
import { crc32, deflateSync } from 'node:zlib';

/** A PNG of `width` × `height` (8-bit RGBA), each pixel's colour from `paint` (default: blue). */
export function png(
  width: number,
  height: number,
  paint: (x: number, y: number) => [number, number, number, number] = () => [29, 78, 216, 255],
) {
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 4 + 1); // each row starts with its filter (0: none)
    for (let x = 0; x < width; x++) rows.set(paint(x, y), row + 1 + x * 4);
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, not interlaced
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A logo that looks like one: a rounded square in `color` with a white bar across it, on transparency (96 × 64). */
export function logoPng(color: [number, number, number] = [124, 58, 237]): Buffer {
  const [w, h] = [96, 64];
  return png(w, h, (x, y) => {
    const inside = x >= 4 && x < w - 4 && y >= 4 && y < h - 4 && !((x < 14 || x >= w - 14) && (y < 14 || y >= h - 14));
    if (!inside) return [0, 0, 0, 0];
    const bar = y >= 26 && y < 38 && x >= 20 && x < w - 20;
    return bar ? [255, 255, 255, 255] : [...color, 255];
  });
}

export const JPEG_40x20 = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCAAUACgDASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAAYH/8QAGBABAAMBAAAAAAAAAAAAAAAAAAZEg8L/xAAYAQEAAwEAAAAAAAAAAAAAAAAGBAUHCP/EAB8RAAEBCQEAAAAAAAAAAAAAAAABAgMFBjQ1gYKxsv/aAAwDAQACEQMRAD8AmAD4oitgt7PpWJOC3s+lYxyZrs918oMIbSsZ6oAHieZMA6EABWwW9n0rAY5M12e6+UGENpWM9UADxPP/2Q==',
  'base64',
);

/** Lossy, in the extended format (VP8X, with an ICC profile, then VP8). */
export const WEBP_40x20 = Buffer.from(
  'UklGRlACAABXRUJQVlA4WAoAAAAgAAAAJwAAEwAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDggYgAAAFAEAJ0BKigAFAA+nT6aSCWjIqEwCACwE4lADsAXR/QD+AS3/uAAGD/+vkAA/u2QP//5mj9JvpN34//oU+1FOw/DL/+dpv/r8f+usDw9Oev/bTD056/rQSqXjIB0ulAMSEAA',
  'base64',
);

/** Lossless, in the extended format (VP8X, with an ICC profile, then VP8L). */
export const WEBP_LOSSLESS_40x20 = Buffer.from(
  'UklGRg4CAABXRUJQVlA4WAoAAAAgAAAAJwAAEwAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDhMIAAAAC8nwAQAD3CnuHd4nwl7/oMHBNk286e9QQUOENH/qPEO',
  'base64',
);

/** The smallest GIF: 1 × 1, transparent. */
export const GIF_1x1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A WebP of one of the extended ones' image chunks alone (`VP8 ` or `VP8L`): the simple formats. */
export function simpleWebp(extended: Buffer): Buffer {
  for (let at = 12; at + 8 <= extended.length; ) {
    const type = extended.toString('latin1', at, at + 4);
    const size = extended.readUInt32LE(at + 4);
    if (type === 'VP8 ' || type === 'VP8L') {
      const chunk = extended.subarray(at, at + 8 + size + (size % 2));
      const head = Buffer.from('RIFF\0\0\0\0WEBP', 'latin1');
      head.writeUInt32LE(4 + chunk.length, 4);
      return Buffer.concat([head, chunk]);
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('no VP8 or VP8L chunk');
}

/** A `width` × `height` PNG of one opaque colour. */
export const solidPng = (width: number, height: number, [r, g, b]: [number, number, number]): Buffer =>
  png(width, height, () => [r, g, b, 255]);

/** An SVG that would run script if served as one. */
export const SCRIPTED_SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
