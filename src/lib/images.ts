// Small images people upload (a workspace's logo, a person's avatar): the type is read from the bytes, never from the
// declared content type or a file name, and only raster formats a browser draws without running anything are taken
// (no SVG: it may carry script, and it would be served from the portal's own origin).

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** The image type of `bytes` by their signature, or null when they are none of the accepted formats. */
export function sniffImage(bytes: Uint8Array): ImageType | null {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  // RIFF....WEBP
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) {
    return 'image/webp';
  }
  return null;
}

/** The largest image taken: 512 KiB (a logo or an avatar, shown small). */
export const MAX_IMAGE_BYTES = 512 * 1024;
