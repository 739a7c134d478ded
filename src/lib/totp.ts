import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * TOTP second factor (RFC 6238 over RFC 4226 HOTP) with the parameters every authenticator app supports
 * without asking: HMAC-SHA-1, 6 digits, 30-second steps. Only node:crypto, so the sign-in path pulls in no
 * third-party code.
 */

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const STEP_SECONDS = 30;
const DIGITS = 6;

/** A new shared secret: 20 random bytes, the 160 bits RFC 4226 recommends (and the length of an SHA-1 output). */
export function generateTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** RFC 4648 base32 without '=' padding: authenticator apps and otpauth URIs expect it unpadded. */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff; // at most 4 leftover + 8 new bits are ever pending
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(value >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/**
 * RFC 4648 base32, forgiving of how people copy secrets (any case, spaces, '=' padding) but not of anything
 * else: a mistyped character throws rather than silently becoming a different secret.
 */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[ =]/g, '').toUpperCase();
  const out = Buffer.alloc(Math.floor((clean.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const char of clean) {
    const digit = BASE32_ALPHABET.indexOf(char);
    if (digit < 0) throw new Error(`invalid base32 character ${JSON.stringify(char)}`);
    value = ((value << 5) | digit) & 0xfff; // at most 7 leftover + 5 new bits are ever pending
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (value >>> bits) & 0xff;
    }
  }
  // 1, 3 or 6 characters past a multiple of 8 cannot come from whole bytes: the text was cut short.
  if ([1, 3, 6].includes(clean.length % 8)) throw new Error('invalid base32: truncated');
  return out;
}

/** RFC 4226 HOTP: HMAC-SHA-1 of the 8-byte big-endian counter, dynamically truncated to `digits` decimal digits. */
export function hotp(secret: Buffer, counter: number, digits = DIGITS): string {
  if (secret.length === 0) throw new RangeError('HOTP secret is empty');
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError(`HOTP counter must be a non-negative integer, got ${counter}`);
  // RFC 4226 asks for at least 6; the truncated value has only 31 bits, so a 10th digit could not take every value.
  if (!Number.isInteger(digits) || digits < 6 || digits > 9) throw new RangeError(`HOTP digits must be 6 to 9, got ${digits}`);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return (binary % 10 ** digits).toString().padStart(digits, '0');
}

/** The RFC 6238 time step of an instant: whole 30-second periods since the Unix epoch (T0 = 0). */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / STEP_SECONDS);
}

/**
 * Checks a 6-digit code against the steps within `window` of now (default one each side, for clock drift
 * and slow typing) and returns the step it matched, for the caller to store as `lastUsedStep`: a code whose
 * step is not after the last one used is refused, so an observed code cannot be replayed, even within its
 * own 30 seconds. Every candidate is computed and compared in constant time, and no loop exits early, so
 * the response time does not tell which step (if any) matched.
 */
export function verifyTotp(
  secretBase32: string,
  code: string,
  nowMs: number,
  options: { window?: number; lastUsedStep?: number | null },
): number | undefined {
  const window = options.window ?? 1;
  if (!Number.isInteger(window) || window < 0) throw new RangeError(`TOTP window must be a non-negative integer, got ${window}`);
  // The shape is not secret, so it may be refused at once; it also makes the lengths equal for timingSafeEqual.
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const secret = base32Decode(secretBase32);
  const given = Buffer.from(code, 'ascii');
  const now = totpStep(nowMs);
  const lastUsed = options.lastUsedStep ?? -1;
  let matched: number | undefined;
  for (let step = now - window; step <= now + window; step++) {
    if (step < 0) continue;
    const equal = timingSafeEqual(given, Buffer.from(hotp(secret, step, DIGITS), 'ascii'));
    // The latest step wins if two steps happen to share a code, so the replay mark moves as far as it can.
    if (equal && step > lastUsed) matched = step;
  }
  return matched;
}

/**
 * The Key URI Format authenticator apps read from a QR code. The issuer is both in the label (older apps)
 * and the parameter (newer ones); the defaults are written out so no app has to guess.
 */
export function otpauthUri({ secret, issuer, accountName }: { secret: string; issuer: string; accountName: string }): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${STEP_SECONDS}`;
}

// No 0/o, 1/l/i: codes are read off paper and typed back by people.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** One-time recovery codes for a lost authenticator: 10 characters each (about 49.5 bits), shown as `xxxxx-xxxxx`. */
export function generateRecoveryCodes(count = 10): string[] {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`recovery code count must be a non-negative integer, got ${count}`);
  const codes = new Set<string>();
  while (codes.size < count) {
    let raw = '';
    // randomInt is unbiased, which a byte modulo the 31-letter alphabet would not be.
    for (let i = 0; i < 10; i++) raw += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    codes.add(`${raw.slice(0, 5)}-${raw.slice(5)}`);
  }
  return [...codes];
}

/** A recovery code as compared: case, dashes and spaces are how it was shown or typed, not part of it. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[-\s]/g, '');
}

/** Stored hash of a recovery code. SHA-256, not a slow password hash: the codes are random (about 49.5 bits), not chosen, so there is no dictionary to slow down. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code), 'utf8').digest('hex');
}
