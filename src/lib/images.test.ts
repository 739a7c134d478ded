// Rule: an uploaded image's type is read from its bytes; only PNG, JPEG, WebP and GIF are taken (never SVG or HTML).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffImage } from './images.js';

test('an image’s type comes from its signature, and anything else is refused', () => {
  assert.equal(sniffImage(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')), 'image/png');
  assert.equal(sniffImage(Buffer.from('ffd8ffe000104a464946', 'hex')), 'image/jpeg');
  assert.equal(sniffImage(Buffer.from('GIF89a\x01\x00', 'latin1')), 'image/gif');
  assert.equal(sniffImage(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
  assert.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>')), null);
  assert.equal(sniffImage(Buffer.from('<html><script>alert(1)</script>')), null);
  assert.equal(sniffImage(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1')), null);
  assert.equal(sniffImage(new Uint8Array()), null);
});
