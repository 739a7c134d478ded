import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets the service must read back (webhook signing secrets: an HMAC needs the secret itself, so it
 * cannot be hashed) are stored sealed with AES-256-GCM under a server key, never in clear. Idempotent
 * answers are sealed the same way under a key derived from the caller's own credential secret.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = createHash('sha256').update(`secret-box\n${serverSecret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed.slice('v1:'.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
