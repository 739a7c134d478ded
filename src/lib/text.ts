/**
 * Lone surrogates (U+D800–U+DFFF without their pair): a JSON escape (`\ud800`) can write one into a string, but no
 * UTF-8 can hold one, so a database stores it changed (SQLite as three U+FFFD, PostgreSQL as one). Refused wherever
 * text comes in: a request's JSON (plugins/request-guards.ts), free-text schemas (lib/schemas.ts), custom field values.
 */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one: linear, no backtracking. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/** How a 400 words it. */
export const NO_LONE_SURROGATE = 'must not contain a lone surrogate (U+D800–U+DFFF without its pair)';
