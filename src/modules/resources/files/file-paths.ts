// Paths and names of file objects: what a name may be, a path's stored form, the folder holding a path.
import type { FieldProblem } from '../../../lib/errors.js';
import { MAX_NAME_LENGTH, MAX_PATH_DEPTH } from './files.schemas.js';

/**
 * Control characters (C0, DEL, C1), the separator a file system could read as a path of its own, and the
 * bidirectional controls (LRM, RLM, ALM, the embeddings, overrides and isolates), which make a name show
 * as another (`invoice‮fdp.exe` read as `invoiceexe.pdf`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A path as stored: in Unicode NFC (two spellings of one name are one path), its segments joined by `/`, one
 * leading or trailing `/` dropped. Each segment is a name of 1–255 characters, not `.` or `..`, without `\`,
 * control or bidirectional-control characters, and not only white space; so no path names anything outside
 * its channel (content is stored under the service's own keys anyway), nor shows as another.
 */
export function normalizePath(raw: string, field: string, problems: FieldProblem[]): string[] | undefined {
  const trimmed = raw.normalize('NFC').replace(/^\//, '').replace(/\/$/, '');
  const segments = trimmed.split('/');
  const bad = (message: string) => {
    problems.push({ path: field, message });
    return undefined;
  };
  if (trimmed === '') return bad('must name something: a path of one or more names separated by /');
  if (segments.length > MAX_PATH_DEPTH) return bad(`has more than ${MAX_PATH_DEPTH} segments`);
  for (const segment of segments) {
    if (segment === '') return bad('has an empty segment (//)');
    if (segment === '.' || segment === '..') return bad('may not have . or .. segments');
    if (FORBIDDEN.test(segment)) return bad('may not hold \\ or control characters');
    if (BIDI_CONTROLS.test(segment))
      return bad('may not hold bidirectional control characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)');
    if (segment.trim() === '') return bad('has a segment of white space only');
    if ([...segment].length > MAX_NAME_LENGTH) return bad(`has a segment longer than ${MAX_NAME_LENGTH} characters`);
  }
  return segments;
}

/** The path of the folder holding this path; undefined at the channel's root. */
export const parentPath = (path: string): string | undefined => {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? undefined : path.slice(0, slash);
};
