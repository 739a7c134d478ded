import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package), keeping what it receives. While
 * `refuse` holds a reply, every recipient is refused with it (a server that is failing).
 */
export async function smtpServer(t: { after(fn: () => Promise<void>): void }) {
  const received: ReceivedMail[] = [];
  const state: { refuse: string | null } = { refuse: null };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 500, // the service's pooled connection may still be open when the test ends
    onRcptTo(_address, _session, callback) {
      if (state.refuse === null) return callback();
      const error = Object.assign(new Error(state.refuse), { responseCode: 451 });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received, state };
}

/** Quoted-printable or base64 content as its bytes' UTF-8 text; any other encoding as it is. */
function decoded(body: string, encoding: string | undefined): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const latin1 = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(latin1, 'latin1').toString('utf8');
  }
  return body;
}

/** A MIME entity's headers (folded lines unfolded, names lower-cased) and its body. */
function entity(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/**
 * The decoded content of the part of media type `type` (text/plain, text/html) of a received e-mail, single-part or
 * multipart (its parts searched in order); undefined when it has none.
 */
export function partOf(mail: ReceivedMail | string, type: string): string | undefined {
  const { headers, body } = entity(typeof mail === 'string' ? mail : mail.raw);
  const contentType = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (/^multipart\//i.test(contentType) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith('--')) break; // the closing delimiter
      const found = partOf(part.replace(/^\r?\n/, ''), type);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (contentType.split(';')[0].trim().toLowerCase() !== type) return undefined;
  return decoded(body.replace(/\r?\n$/, ''), headers.get('content-transfer-encoding')?.toLowerCase());
}
