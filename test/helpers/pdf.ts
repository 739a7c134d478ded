import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';

/** Debian's pdftotext (poppler-utils, installed by .ci/run); PORTAL_TEST_PDFTOTEXT names another. */
const PDFTOTEXT = process.env.PORTAL_TEST_PDFTOTEXT || 'pdftotext';

/** Whether pdftotext runs here: the PDF tests are skipped, and say so, without it. */
export const PDFTOTEXT_MISSING = spawnSync(PDFTOTEXT, ['-v']).error
  ? 'pdftotext (poppler-utils) is not installed: apt-get install poppler-utils'
  : false;

/**
 * A PDF answer read back as text: 200, `application/pdf`, an attachment named `fileName`, then its text as
 * pdftotext lays it out, each run of white space made one space ("Amount due $34.28").
 */
export function pdfAnswerText(res: LightMyRequestResponse, fileName: string): string {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/pdf');
  assert.equal(res.headers['content-disposition'], `attachment; filename="${fileName}"`);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  return pdfText(res.rawPayload);
}

/** A PDF's text as pdftotext reads it, white space runs as one space. */
export function pdfText(pdf: Buffer): string {
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  const read = spawnSync(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf, encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  return read.stdout.replace(/\s+/g, ' ').trim();
}

/** Debian's pdfimages (poppler-utils, beside pdftotext); PORTAL_TEST_PDFIMAGES names another. */
const PDFIMAGES = process.env.PORTAL_TEST_PDFIMAGES || 'pdfimages';

export interface PdfImage {
  page: number;
  /** image, smask (an image's transparency), … */
  type: string;
  width: number;
  height: number;
  /** how it is encoded: image (flate), jpeg, … */
  encoding: string;
}

/** The images a PDF draws, as `pdfimages -list` reads them from its bytes. */
export function pdfImages(pdf: Buffer): PdfImage[] {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-images-'));
  try {
    const file = join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    const listed = spawnSync(PDFIMAGES, ['-list', file], { encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    // page num type width height color comp bpc enc …, under a header of two lines
    return listed.stdout
      .trim()
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .map(([page, , type, width, height, , , , encoding]) => ({
        page: Number(page),
        type,
        width: Number(width),
        height: Number(height),
        encoding,
      }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
