import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  base32Decode,
  base32Encode,
  generateRecoveryCodes,
  generateTotpSecret,
  hashRecoveryCode,
  hotp,
  normalizeRecoveryCode,
  otpauthUri,
  totpStep,
  verifyTotp,
} from './totp.js';

// The RFC 4226 and RFC 6238 (SHA-1) test secret.
const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');
const RFC_SECRET_BASE32 = base32Encode(RFC_SECRET);

describe('HOTP and TOTP match the RFC test vectors', () => {
  test('RFC 4226 Appendix D: HOTP of counters 0 to 9', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    assert.deepEqual(
      expected.map((_, counter) => hotp(RFC_SECRET, counter)),
      expected,
    );
  });

  // RFC 6238 Appendix B, SHA-1 rows: Unix time in seconds, 8-digit TOTP.
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];

  test('RFC 6238 Appendix B: 8-digit SHA-1 TOTP at each test time', () => {
    for (const [seconds, code] of vectors) assert.equal(hotp(RFC_SECRET, totpStep(seconds * 1000), 8), code, `T = ${seconds}`);
  });

  test('6 digits are the same truncation taken modulo 10^6: the last 6 of the 8-digit vectors', () => {
    for (const [seconds, code] of vectors) assert.equal(hotp(RFC_SECRET, totpStep(seconds * 1000)), code.slice(2), `T = ${seconds}`);
  });

  test('verifyTotp accepts each 6-digit vector at its time and returns its step', () => {
    for (const [seconds, code] of vectors) {
      assert.equal(verifyTotp(RFC_SECRET_BASE32, code.slice(2), seconds * 1000, {}), Math.floor(seconds / 30), `T = ${seconds}`);
    }
  });

  test('totpStep counts whole 30-second periods since the epoch', () => {
    assert.deepEqual([0, 29_999, 30_000, 59_000, 1111111109_000, 20000000000_000].map(totpStep), [0, 0, 1, 1, 37037036, 666666666]);
  });

  test('hotp refuses an empty secret, a negative or fractional counter, and fewer than 6 digits', () => {
    assert.throws(() => hotp(Buffer.alloc(0), 0), RangeError);
    assert.throws(() => hotp(RFC_SECRET, -1), RangeError);
    assert.throws(() => hotp(RFC_SECRET, 1.5), RangeError);
    assert.throws(() => hotp(RFC_SECRET, 0, 5), RangeError);
  });
});

describe('base32 is RFC 4648 without padding', () => {
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ];

  test('RFC 4648 section 10 vectors encode unpadded and decode back', () => {
    for (const [plain, encoded] of vectors) {
      assert.equal(base32Encode(Buffer.from(plain, 'ascii')), encoded, JSON.stringify(plain));
      assert.equal(base32Decode(encoded).toString('ascii'), plain, encoded);
    }
  });

  test('every byte length from 0 to 40 round-trips', () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 97 + length * 31 + 255) & 0xff));
      assert.deepEqual(base32Decode(base32Encode(bytes)), bytes, `length ${length}`);
    }
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    assert.deepEqual(base32Decode(base32Encode(all)), all);
  });

  test('decoding ignores case, spaces and = padding', () => {
    assert.equal(base32Decode('mzxw6ytboi').toString('ascii'), 'foobar');
    assert.equal(base32Decode('MZXW 6YTB OI').toString('ascii'), 'foobar');
    assert.equal(base32Decode('MZXW6YQ=').toString('ascii'), 'foob');
    assert.equal(base32Decode('MY======').toString('ascii'), 'f');
  });

  test('decoding throws on characters outside the alphabet and on impossible lengths', () => {
    for (const bad of ['MZXW0', 'MZXW1', 'MZXW8', 'MZXW9', 'MZXW6!', 'MZ-XW6', 'MZXW6\t', 'MZXÉ6']) {
      assert.throws(() => base32Decode(bad), /invalid base32 character/, JSON.stringify(bad));
    }
    for (const truncated of ['M', 'MZX', 'MZXW6Y']) assert.throws(() => base32Decode(truncated), /truncated/, truncated);
  });

  test('generateTotpSecret is 20 random bytes as 32 base32 characters', () => {
    const secret = generateTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(base32Decode(secret).length, 20);
    assert.notEqual(generateTotpSecret(), secret);
  });
});

describe('verifyTotp', () => {
  const secret = generateTotpSecret();
  const key = base32Decode(secret);
  // Mid-step, so drift of a few seconds would not change the answer.
  const now = 1_800_000_015_000;
  const step = totpStep(now);
  const codeAt = (offset: number) => hotp(key, step + offset);

  test('the current step and one step either side are accepted by default, returning the matched step', () => {
    assert.equal(verifyTotp(secret, codeAt(0), now, {}), step);
    assert.equal(verifyTotp(secret, codeAt(-1), now, {}), step - 1);
    assert.equal(verifyTotp(secret, codeAt(1), now, {}), step + 1);
  });

  test('a code two steps away is refused with the default window, accepted with window 2', () => {
    for (const offset of [-2, 2]) {
      // A code may repeat across steps by chance (1 in a million); the check is only meaningful when it does not.
      if ([-1, 0, 1].some((near) => codeAt(near) === codeAt(offset))) continue;
      assert.equal(verifyTotp(secret, codeAt(offset), now, {}), undefined, `offset ${offset}`);
      assert.equal(verifyTotp(secret, codeAt(offset), now, { window: 2 }), step + offset, `offset ${offset}`);
    }
  });

  test('window 0 accepts only the current step', () => {
    assert.equal(verifyTotp(secret, codeAt(0), now, { window: 0 }), step);
    if (codeAt(-1) !== codeAt(0)) assert.equal(verifyTotp(secret, codeAt(-1), now, { window: 0 }), undefined);
  });

  test('a wrong code is refused', () => {
    const codes = new Set([-1, 0, 1].map(codeAt));
    const wrong = ['000000', '123456', '999999'].find((code) => !codes.has(code)) as string;
    assert.equal(verifyTotp(secret, wrong, now, {}), undefined);
  });

  test('replay: a code whose step is not after lastUsedStep is refused', () => {
    const used = verifyTotp(secret, codeAt(0), now, {});
    assert.equal(used, step);
    assert.equal(verifyTotp(secret, codeAt(0), now, { lastUsedStep: used }), undefined, 'the same code again');
    assert.equal(verifyTotp(secret, codeAt(0), now + 20_000, { lastUsedStep: used }), undefined, 'the same code, next step');
    if (codeAt(-1) !== codeAt(0)) assert.equal(verifyTotp(secret, codeAt(-1), now, { lastUsedStep: used }), undefined, 'an earlier code');
    assert.equal(verifyTotp(secret, codeAt(1), now, { lastUsedStep: used }), step + 1, 'a later code still passes');
    assert.equal(verifyTotp(secret, codeAt(0), now, { lastUsedStep: step - 1 }), step, 'lastUsedStep before the code');
    assert.equal(verifyTotp(secret, codeAt(0), now, { lastUsedStep: null }), step, 'null: never used');
  });

  test('malformed codes are refused: anything but exactly 6 ASCII digits', () => {
    for (const code of ['12345', '1234567', '12a456', ' 123456', '', '123 456', '１２３４５６', '١٢٣٤٥٦']) {
      assert.equal(verifyTotp(secret, code, now, {}), undefined, JSON.stringify(code));
    }
    // Even around the right digits: the shape is checked, not trimmed.
    const right = codeAt(0);
    for (const code of [` ${right}`, `${right} `, `${right}\n`, `${right}0`, right.slice(1), `-${right.slice(1)}`]) {
      assert.equal(verifyTotp(secret, code, now, {}), undefined, JSON.stringify(code));
    }
  });

  test('near the epoch, steps before 0 are skipped rather than failing', () => {
    assert.equal(verifyTotp(RFC_SECRET_BASE32, hotp(RFC_SECRET, 0), 1_000, {}), 0);
    assert.equal(verifyTotp(RFC_SECRET_BASE32, hotp(RFC_SECRET, 1), 1_000, {}), 1);
  });

  test('a negative or fractional window is a programming error and throws', () => {
    assert.throws(() => verifyTotp(secret, codeAt(0), now, { window: -1 }), RangeError);
    assert.throws(() => verifyTotp(secret, codeAt(0), now, { window: 0.5 }), RangeError);
  });
});

describe('otpauthUri', () => {
  test('the Key URI has the issuer in the label and the parameters, each encoded, and the fixed algorithm, digits and period', () => {
    const uri = otpauthUri({ secret: 'JBSWY3DPEHPK3PXP', issuer: 'Portal & Co', accountName: 'ada+x@example.com' });
    assert.equal(
      uri,
      'otpauth://totp/Portal%20%26%20Co:ada%2Bx%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Portal%20%26%20Co&algorithm=SHA1&digits=6&period=30',
    );
    const parsed = new URL(uri);
    assert.equal(decodeURIComponent(parsed.pathname.slice(1)), 'Portal & Co:ada+x@example.com');
    assert.deepEqual(Object.fromEntries(parsed.searchParams), {
      secret: 'JBSWY3DPEHPK3PXP',
      issuer: 'Portal & Co',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });

  test('a colon in the issuer or account is encoded, so the label keeps one separator', () => {
    const uri = otpauthUri({ secret: 'JBSWY3DPEHPK3PXP', issuer: 'a:b', accountName: 'c:d' });
    assert.ok(uri.startsWith('otpauth://totp/a%3Ab:c%3Ad?'));
  });
});

describe('recovery codes', () => {
  const shape = /^[abcdefghjkmnpqrstuvwxyz23456789]{5}-[abcdefghjkmnpqrstuvwxyz23456789]{5}$/;

  test('ten by default, each xxxxx-xxxxx from an alphabet without 0/o, 1/l/i', () => {
    const codes = generateRecoveryCodes();
    assert.equal(codes.length, 10);
    for (const code of codes) assert.match(code, shape);
    assert.equal(generateRecoveryCodes(3).length, 3);
    assert.deepEqual(generateRecoveryCodes(0), []);
  });

  test('codes are unique within a set and random across sets', () => {
    const many = generateRecoveryCodes(2000);
    assert.equal(new Set(many).size, 2000);
    const used = new Set(many.join('').replace(/-/g, ''));
    for (const ambiguous of ['0', 'o', '1', 'l', 'i', 'O', 'I']) assert.equal(used.has(ambiguous), false, ambiguous);
    // With 2000 codes every one of the 31 characters shows up; none is starved by a biased draw.
    assert.equal(used.size, 31);
    assert.notDeepEqual(generateRecoveryCodes(), generateRecoveryCodes());
  });

  test('normalizeRecoveryCode lowercases and drops dashes and spaces', () => {
    assert.equal(normalizeRecoveryCode('ABCDE-FGHJK'), 'abcdefghjk');
    assert.equal(normalizeRecoveryCode(' abcde fghjk '), 'abcdefghjk');
    assert.equal(normalizeRecoveryCode('abc-de-fg hjk'), 'abcdefghjk');
  });

  test('hashRecoveryCode is the SHA-256 hex of the normalized code, the same however it is typed', () => {
    const [code] = generateRecoveryCodes(1);
    const hash = hashRecoveryCode(code);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(hash, createHash('sha256').update(code.replace('-', '')).digest('hex'));
    for (const typed of [code.toUpperCase(), code.replace('-', ''), code.replace('-', ' '), ` ${code} `]) {
      assert.equal(hashRecoveryCode(typed), hash, typed);
    }
    assert.notEqual(hashRecoveryCode('abcde-fghjk'), hashRecoveryCode('abcde-fghjm'));
  });
});
