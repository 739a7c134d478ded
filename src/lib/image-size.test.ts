// Rule: an image's size in pixels is read from its header, in each format taken (PNG, JPEG, WebP lossy, lossless and
// extended, GIF); bytes that only start like an image, or say a size of zero, have none (a logo is refused for it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GIF_1x1, JPEG_40x20, WEBP_40x20, WEBP_LOSSLESS_40x20, png, simpleWebp } from '../../test/helpers/images.js';
import { imageSize } from './image-size.js';
import { sniffImage } from './images.js';

const sizeOf = (bytes: Buffer) => {
  const type = sniffImage(bytes);
  assert.ok(type, 'an image type');
  return imageSize(bytes, type);
};

test('the size of an image of each format taken', () => {
  assert.deepEqual(sizeOf(png(96, 64)), { width: 96, height: 64 });
  assert.deepEqual(sizeOf(png(1, 300)), { width: 1, height: 300 });
  assert.deepEqual(sizeOf(JPEG_40x20), { width: 40, height: 20 });
  assert.deepEqual(sizeOf(WEBP_40x20), { width: 40, height: 20 }, 'extended (VP8X)');
  assert.deepEqual(sizeOf(WEBP_LOSSLESS_40x20), { width: 40, height: 20 }, 'extended (VP8X), lossless');
  assert.deepEqual(sizeOf(simpleWebp(WEBP_40x20)), { width: 40, height: 20 }, 'lossy (VP8)');
  assert.deepEqual(sizeOf(simpleWebp(WEBP_LOSSLESS_40x20)), { width: 40, height: 20 }, 'lossless (VP8L)');
  assert.deepEqual(sizeOf(GIF_1x1), { width: 1, height: 1 });
});

test('no size: a signature alone, a header cut short, a size of zero', () => {
  assert.equal(imageSize(png(4, 4).subarray(0, 20), 'image/png'), null);
  assert.equal(imageSize(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'image/png'), null);
  assert.equal(imageSize(png(4, 4).fill(0, 16, 20), 'image/png'), null, 'a width of zero');
  // The JPEG up to its first segments, without its frame header.
  assert.equal(imageSize(JPEG_40x20.subarray(0, 200), 'image/jpeg'), null);
  assert.equal(imageSize(Buffer.from('ffd8ffe000104a464946', 'hex'), 'image/jpeg'), null);
  assert.equal(imageSize(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'), 'image/webp'), null);
  assert.equal(imageSize(Buffer.from('GIF89a\x01\x00', 'latin1'), 'image/gif'), null);
});
