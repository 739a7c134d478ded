import { Transform, type TransformCallback } from 'node:stream';

/**
 * The CSV text of the client import and export (RFC 4180): quoting, the spreadsheet-formula guard, and
 * the input's line endings.
 */

/** A cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV injection"), after any `'`. */
const FORMULA = /^'*[=+\-@\t\r]/;
/** What the export's guard made of such a cell: one `'` more in front. */
const GUARDED = /^'+[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A value as the export writes it: a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
 * (after any `'`) gets a `'` in front, so a spreadsheet shows it as text instead of running it.
 */
function defuse(value: string): string {
  return FORMULA.test(value) ? `'${value}` : value;
}

/** The inverse of `defuse`, applied by the import: a `'` in front of such a cell is taken away (one only). */
export function restore(cell: string): string {
  return GUARDED.test(cell) ? cell.slice(1) : cell;
}

/** One record: each value defused, quoted when it holds `,` `"` CR or LF (quotes doubled), ended by CRLF. */
export function csvRecord(values: readonly string[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const value = defuse(values[i]);
    if (i > 0) line += ',';
    line += NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  }
  return `${line}\r\n`;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Passes the bytes of a CSV file on with every line ending made LF (CRLF and a lone CR alike; inside
 * quoted values too), so that the parser counts physical lines right, and counts them: `bytes` read so
 * far. UTF-8 never uses the
 * bytes of CR or LF inside a character, so working on bytes is safe.
 */
export class LineEndings extends Transform {
  bytes = 0;
  /** The last chunk ended with a CR: an LF first in the next is its CRLF's. */
  private pendingCr = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.bytes += chunk.length;
    let start = 0;
    if (this.pendingCr && chunk.length > 0) {
      this.pendingCr = false;
      if (chunk[0] === LF) start = 1;
    }
    const first = chunk.indexOf(CR, start);
    if (first === -1) return callback(null, start === 0 ? chunk : chunk.subarray(start));
    const out = Buffer.allocUnsafe(chunk.length - start);
    let n = 0;
    for (let i = start; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte !== CR) out[n++] = byte;
      else if (i + 1 === chunk.length) {
        out[n++] = LF;
        this.pendingCr = true;
      } else {
        out[n++] = LF;
        if (chunk[i + 1] === LF) i++;
      }
    }
    callback(null, out.subarray(0, n));
  }
}
