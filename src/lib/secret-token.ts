import { createHash, randomBytes } from 'node:crypto';

/**
 * A bearer secret handed to one person (a sign-in cookie, a magic or invite link): 256 random bits. Only its
 * SHA-256 is stored, and looked up: a fast hash is right for a value this long (nobody can guess its preimage).
 */
export function newSecretToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecretToken(token) };
}

export const hashSecretToken = (token: string) => createHash('sha256').update(token).digest('hex');
