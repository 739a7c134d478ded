/**
 * Prefix search on words (`GET /v1/clients?q=`, `GET /v1/companies?q=`): the terms a name or an e-mail is found by,
 * and the range of stored terms a query matches. Shared by the directory (which stores the terms with each client
 * and company) and the migration that wrote them for the rows before it, so both cut words the same way.
 *
 * A term is the searchable text from the start of one word to the end, in lower case with white space runs made one
 * space: "Ada King-Lovelace" gives "ada king-lovelace", "king-lovelace" and "lovelace", so a query is a prefix of a
 * term exactly when it is a prefix of a word (or of several words in order: "ada ki"). A word starts at a letter or
 * digit that follows none. Comparing terms is comparing code points (SQLite's BINARY, PostgreSQL's "C" collation).
 */

/** Words of a name indexed from its first: a name of more words is still found by these (and by its whole start). */
const MAX_WORDS = 16;
/** The characters of a term kept: a query is at most 100 characters (lower-casing may lengthen one a little). */
const MAX_TERM_LENGTH = 200;

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** A text as terms and queries compare it: Unicode NFC, lower case, white space runs as one space, trimmed. */
export function searchForm(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** At most MAX_TERM_LENGTH code points, never half a surrogate pair. */
function cut(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  return Array.from(term).slice(0, MAX_TERM_LENGTH).join('');
}

/** The terms of a name (a company's, or a client's "given family"): from each word's start to the end. */
export function nameTerms(name: string): string[] {
  const text = searchForm(name);
  const chars = Array.from(text);
  const terms = new Set<string>();
  let offset = 0; // in UTF-16 units, for slicing
  for (let i = 0; i < chars.length && terms.size < MAX_WORDS; i++) {
    const startsWord = WORD_CHAR.test(chars[i]) && (i === 0 || !WORD_CHAR.test(chars[i - 1]));
    if (startsWord) terms.add(cut(text.slice(offset)));
    offset += chars[i].length;
  }
  return [...terms];
}

/** A client's terms: its name's ("given family") and its whole e-mail address. */
export function clientTerms(givenName: string, familyName: string, email: string): string[] {
  return [...new Set([...nameTerms(`${givenName} ${familyName}`), cut(searchForm(email))])];
}

/**
 * The terms a query matches, as a range from `from` (inclusive) to `to` (exclusive; none: no bound): every string that
 * starts with the query's search form is at least the form itself and less than the form with its last code point
 * raised by one (past the greatest, U+10FFFF, the one before it raised). Undefined when the query has no character to
 * search by.
 */
export function prefixRange(query: string): { from: string; to?: string } | undefined {
  const from = searchForm(query);
  if (from === '') return undefined;
  const chars = Array.from(from);
  while (chars.length > 0) {
    const last = (chars.pop() as string).codePointAt(0) as number;
    if (last === 0x10ffff) continue;
    const next = last + 1 === 0xd800 ? 0xe000 : last + 1; // past the surrogates, which no string of ours holds alone
    return { from, to: `${chars.join('')}${String.fromCodePoint(next)}` };
  }
  return { from };
}
