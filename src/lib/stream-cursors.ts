import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

const CURSOR = /^[A-Za-z0-9_-]{22}$/;

/**
 * A stream's position as its events' ids show it (`id:`; `Last-Event-ID` or `?since=` to resume): a number in the
 * workspace's order of commits, sealed, so that it tells nothing (how many messages the workspace's other people
 * exchange) and is no position in another workspace. One AES block (8 bytes naming the workspace, then the number),
 * 22 base64url characters; the same position always reads the same, whoever's stream shows it.
 */
export class StreamCursors {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = createHash('sha256').update(`stream-cursors\n${serverSecret}`).digest();
  }

  encode(workspaceId: string, position: number): string {
    const block = Buffer.alloc(16);
    workspaceTag(workspaceId).copy(block, 0);
    block.writeBigUInt64BE(BigInt(position), 8);
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The position a cursor of this workspace names; undefined for anything else (forged, altered, another workspace's). */
  decode(workspaceId: string, cursor: string): number | undefined {
    if (!CURSOR.test(cursor)) return undefined;
    const sealed = Buffer.from(cursor, 'base64url');
    // Only as this service writes it: the last character's low bits, which base64 ignores, unset.
    if (sealed.toString('base64url') !== cursor) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
    if (!block.subarray(0, 8).equals(workspaceTag(workspaceId))) return undefined;
    const position = block.readBigUInt64BE(8);
    return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
  }
}

const workspaceTag = (workspaceId: string) => createHash('sha256').update(`workspace\n${workspaceId}`).digest().subarray(0, 8);
