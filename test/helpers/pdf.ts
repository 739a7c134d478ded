import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
  assert.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
  const read = spawnSync(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', '-', '-'], { input: res.rawPayload, encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  return read.stdout.replace(/\s+/g, ' ').trim();
}
