/**
 * The documents this service draws (invoice and contract PDFs): pdfkit, imported with the first document
 * (it is some 2 MB the server never loads otherwise), and the layout both kinds share: the workspace's band
 * in its brand colour, headings, label/value lists, tables and a totals block. Text is drawn in the PDF
 * standard fonts (no font file to ship), which know the Windows-1252 characters: any other is drawn as "?".
 */
import type { Readable } from 'node:stream';
import { type Static, Type } from 'typebox';

/** Who a document comes from: the workspace's name, its colour (#rrggbb), and its logo (a PNG or a JPEG: what pdfkit reads). */
export interface Brand {
  name: string;
  color: string;
  logo?: { bytes: Buffer; width: number; height: number };
}

type PdfKitDocument = PDFKit.PDFDocument;
type PdfKitModule = { default: new (options?: PDFKit.PDFDocumentOptions) => PdfKitDocument };
let pdfKit: Promise<PdfKitModule> | undefined;

const MARGIN = 50;
const BAND_HEIGHT = 64;
/** The logo's box in the band: its height, and its widest (a wide logo is drawn smaller). */
const LOGO_HEIGHT = 40;
const LOGO_MAX_WIDTH = 160;
const MUTED = '#555555';
const RULE = '#cccccc';

/** The characters the standard fonts draw beyond Latin-1 (Windows-1252's 0x80–0x9f). */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text the standard fonts can draw: control characters dropped, characters beyond Windows-1252 drawn as "?". */
export function pdfText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0x0a || code === 0x09) out += char === '\t' ? ' ' : char;
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
    else out += code <= 0xff || WIN_ANSI_EXTRA.has(char) ? char : '?';
  }
  return out;
}

/** "28 Nov 2026", in UTC. */
export const pdfDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** "28 Nov 2026, 14:05:09 UTC". */
export const pdfTime = (iso: string) => `${pdfDate(iso)}, ${iso.slice(11, 19)} UTC`;

/** Black or white, whichever reads better on `hex`. */
function inkOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? '#000000' : '#ffffff';
}

export interface Column {
  label: string;
  /** a share of the page's width; the columns' shares add up to 1 */
  width: number;
  align?: 'left' | 'right';
}

/** A totals row: a label and its value, `strong` for the one that matters (the total, the amount due). */
export interface TotalRow {
  label: string;
  value: string;
  strong?: boolean;
}

/** One document being written: its parts drawn top to bottom, new pages as they fill. */
export class PdfWriter {
  readonly #doc: PdfKitDocument;
  readonly #brand: Brand;
  readonly #width: number;

  constructor(doc: PdfKitDocument, brand: Brand) {
    this.#doc = doc;
    this.#brand = brand;
    this.#width = doc.page.width - 2 * MARGIN;
  }

  /** The band across the top (the workspace's logo and name on its colour), then the document's title and its subtitle. */
  header(title: string, subtitle: string): this {
    const doc = this.#doc;
    doc.rect(0, 0, doc.page.width, BAND_HEIGHT).fill(this.#brand.color);
    const logoWidth = this.#logo();
    const nameX = MARGIN + (logoWidth > 0 ? logoWidth + 12 : 0);
    doc
      .font('Helvetica-Bold')
      .fontSize(16)
      .fillColor(inkOn(this.#brand.color))
      .text(pdfText(this.#brand.name), nameX, 24, { width: this.#width - (nameX - MARGIN), lineBreak: false, ellipsis: true });
    doc
      .fillColor('#000000')
      .font('Helvetica-Bold')
      .fontSize(22)
      .text(pdfText(title), MARGIN, BAND_HEIGHT + 24, { width: this.#width });
    doc.font('Helvetica').fontSize(11).fillColor(MUTED).text(pdfText(subtitle), { width: this.#width });
    doc.moveDown(1);
    return this;
  }

  heading(text: string): this {
    this.#room(40);
    const doc = this.#doc;
    doc.moveDown(0.6);
    doc.font('Helvetica-Bold').fontSize(12).fillColor(this.#brand.color).text(pdfText(text), MARGIN, doc.y, { width: this.#width });
    this.#rule();
    return this;
  }

  /** Label / value lines (a label in grey, its value beside it, wrapped in its column). */
  fields(pairs: ReadonlyArray<readonly [string, string]>): this {
    const doc = this.#doc;
    const labelWidth = this.#width * 0.3;
    const valueWidth = this.#width - labelWidth - 10;
    doc.fontSize(10);
    for (const [label, value] of pairs) {
      const text = pdfText(value) || '–';
      doc.font('Helvetica');
      const height = Math.max(doc.heightOfString(text, { width: valueWidth }), doc.heightOfString(pdfText(label), { width: labelWidth }));
      this.#room(height + 4);
      const y = doc.y;
      doc.fillColor(MUTED).text(pdfText(label), MARGIN, y, { width: labelWidth });
      doc.fillColor('#000000').text(text, MARGIN + labelWidth + 10, y, { width: valueWidth });
      doc.y = y + height + 4;
    }
    doc.x = MARGIN;
    return this;
  }

  /** A table: its header row, then each row (cells wrapped in their column), continued on new pages. */
  table(columns: readonly Column[], rows: ReadonlyArray<readonly string[]>): this {
    const doc = this.#doc;
    const widths = columns.map((column) => column.width * this.#width);
    const line = (cells: readonly string[], font: string, color: string) => {
      doc.font(font).fontSize(10);
      const texts = cells.map((cell) => pdfText(cell));
      const height = Math.max(...texts.map((text, i) => doc.heightOfString(text, { width: widths[i] - 8 })));
      this.#room(height + 8);
      const y = doc.y;
      let x = MARGIN;
      texts.forEach((text, i) => {
        doc.fillColor(color).text(text, x + 4, y + 4, { width: widths[i] - 8, align: columns[i].align ?? 'left' });
        x += widths[i];
      });
      doc.y = y + height + 8;
    };
    this.#room(40);
    line(
      columns.map((column) => column.label),
      'Helvetica-Bold',
      MUTED,
    );
    this.#rule();
    for (const row of rows) line(row, 'Helvetica', '#000000');
    this.#rule();
    doc.x = MARGIN;
    return this;
  }

  /** The totals, right-aligned under a table, each row a label and its amount. */
  totals(rows: readonly TotalRow[]): this {
    const doc = this.#doc;
    const labelX = MARGIN + this.#width * 0.45;
    const labelWidth = this.#width * 0.3;
    const valueWidth = this.#width * 0.25;
    for (const row of rows) {
      this.#room(20);
      const y = doc.y + 2;
      doc.font(row.strong ? 'Helvetica-Bold' : 'Helvetica').fontSize(row.strong ? 11 : 10);
      doc.fillColor(row.strong ? '#000000' : MUTED).text(pdfText(row.label), labelX, y, { width: labelWidth });
      doc.fillColor('#000000').text(pdfText(row.value), labelX + labelWidth, y, { width: valueWidth, align: 'right' });
      doc.y = y + 16;
    }
    doc.x = MARGIN;
    return this;
  }

  paragraph(text: string, options: { muted?: boolean } = {}): this {
    const doc = this.#doc;
    this.#room(20);
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor(options.muted ? MUTED : '#000000')
      .text(pdfText(text), MARGIN, doc.y, { width: this.#width });
    return this;
  }

  /**
   * The logo at the band's left, LOGO_HEIGHT high (at most LOGO_MAX_WIDTH wide, its proportions kept); the width it
   * took, 0 when there is none or pdfkit cannot read it (the document is drawn without it rather than not at all).
   */
  #logo(): number {
    const logo = this.#brand.logo;
    if (!logo) return 0;
    const width = Math.min(LOGO_MAX_WIDTH, (LOGO_HEIGHT * logo.width) / logo.height);
    const height = (width * logo.height) / logo.width;
    try {
      this.#doc.image(logo.bytes, MARGIN, (BAND_HEIGHT - height) / 2, { width, height });
      return width;
    } catch {
      return 0;
    }
  }

  /** A line across the page under what was just drawn. */
  #rule() {
    const doc = this.#doc;
    doc
      .moveTo(MARGIN, doc.y + 2)
      .lineTo(MARGIN + this.#width, doc.y + 2)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    doc.y += 6;
  }

  /** A new page when less than `height` is left on this one. */
  #room(height: number) {
    const doc = this.#doc;
    if (doc.y + height > doc.page.height - MARGIN) {
      doc.addPage();
      doc.y = MARGIN;
    }
  }
}

/**
 * Writes a document with `draw` and answers it as a stream (pdfkit's document is a Readable of the PDF's
 * bytes, produced as it is drawn and ended here). pdfkit is loaded on the first call.
 */
export async function writePdf(meta: { title: string; author: string }, brand: Brand, draw: (pdf: PdfWriter) => void): Promise<Readable> {
  pdfKit ??= import('pdfkit') as unknown as Promise<PdfKitModule>;
  const { default: PDFDocument } = await pdfKit;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: pdfText(meta.title), Author: pdfText(meta.author), Creator: 'Portal Platform' },
  });
  draw(new PdfWriter(doc, brand));
  doc.end();
  return doc;
}

/** A document to send: its file name and its bytes as they are drawn. */
export interface PdfDocument {
  fileName: string;
  stream: Readable;
}

/** How a document is answered: `?disposition=inline` shows it in the browser's own viewer (a preview). */
export const PdfQuery = Type.Object(
  {
    disposition: Type.Optional(
      Type.Enum(['attachment', 'inline'], {
        description: 'attachment (the default): saved under its file name; inline: shown by the browser, a preview.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PdfQuery = Static<typeof PdfQuery>;

/** The headers of a document's answer: a PDF to save (an attachment) or to show (inline), never cached. */
export function pdfHeaders(document: PdfDocument, disposition: PdfQuery['disposition'] = 'attachment'): Record<string, string> {
  const ascii = document.fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return {
    'content-type': 'application/pdf',
    'content-disposition': `${disposition}; filename="${ascii}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
}

/** A route's 200 answer that is a PDF (the OpenAPI document's response). */
export const PdfResponse = (description: string) => ({
  description,
  content: { 'application/pdf': { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }) } },
});
