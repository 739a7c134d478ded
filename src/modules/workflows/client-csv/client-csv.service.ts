import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CsvError, Info } from 'csv-parse';
import type { Database } from '../../../db/database.js';
import { type Caller, systemCaller } from '../../../lib/caller.js';
import type { Clock } from '../../../lib/clock.js';
import { ApiError, type FieldProblem, errors } from '../../../lib/errors.js';
import { Name } from '../../../lib/schemas.js';
import {
  type CheckedClient,
  ClientCreate,
  clientsInCreationOrder,
  commitClients,
  createCompany,
  prepareClients,
} from '../../resources/directory/index.js';
import { type ClientColumnField, clientFields, companyIdsByNameKey, companyNames } from './client-csv.repository.js';
import { LineEndings, csvRecord, restore } from './client-csv.format.js';
import type { ImportResult, RowError } from './client-csv.schemas.js';

/**
 * `portal import clients` / `portal export clients` and their admin routes: clients as CSV, one row each.
 * Columns: email, givenName, familyName, company (a company's name) and the key of each client custom field.
 */

const BASE_COLUMNS = ['email', 'givenName', 'familyName', 'company'] as const;
const REQUIRED_COLUMNS = ['email', 'givenName', 'familyName'];
/** Rows per unit of work: a crash loses at most the batch being written, which was never reported. */
const BATCH_ROWS = 500;
/** The longest errors list answered (the rest counted only by `truncatedErrors`): memory stays bounded. */
export const MAX_REPORTED_ERRORS = 1000;
/** One record (one client) of at most 1 MiB: an unclosed quote cannot make the parser hold the whole file. */
const MAX_RECORD_BYTES = 1 << 20;
/** Company names found or created, remembered across batches (cleared past this many: memory stays bounded). */
const MAX_CACHED_COMPANIES = 10_000;
/** A batch whose commit failed on a change made meanwhile (an email taken, a company deleted) is checked again this often. */
const COMMIT_ATTEMPTS = 3;
const EXPORT_PAGE = 1000;
/** multiSelect cells list their options (labels, keys or ids) separated by this. */
const OPTION_SEPARATOR = ';';

/**
 * The CSV parser and the rules of POST /v1/clients' body and POST /v1/companies' name, compiled once (after
 * validate.js has set the formats the HTTP validators use): a valid row costs one call. Loaded by the first
 * import, so a process that never imports holds none of them.
 */
let importTools: Promise<ImportTools> | undefined;
type ImportTools = Awaited<ReturnType<typeof loadImportTools>>;
async function loadImportTools() {
  const [{ parse, CsvError }, { Compile }, { schemaProblems }] = await Promise.all([
    import('csv-parse'),
    import('typebox/compile'),
    import('../../../lib/validate.js'),
  ]);
  return { parse, CsvError, schemaProblems, clientCreate: Compile(ClientCreate), companyName: Compile(Name) };
}

type Column = { kind: 'base'; name: (typeof BASE_COLUMNS)[number] } | { kind: 'field'; field: ClientColumnField };
const nameOf = (column: Column) => (column.kind === 'base' ? column.name : column.field.key);

interface Row {
  line: number;
  input: ClientCreate;
  /** The company named, trimmed; none: a placeholder company, as the API makes one. */
  company?: string;
}

/** The import's running totals, and how far it has read (for a progress bar). */
export interface ImportProgress {
  /** Records read (the header excepted). */
  rows: number;
  /** Bytes of the file behind the rows read (all of it at the end). */
  bytes: number;
}

export interface ImportOptions {
  /** Called after each batch is committed. */
  onProgress?: (progress: ImportProgress) => void;
}

const normalizeColumn = (cell: string) => cell.trim();
const nameKey = (name: string) => name.trim().toLowerCase();

/** The client custom fields that are columns: a field keyed like a column of its own (`email`…) is left out (that column wins). */
async function csvFields(database: Database, caller: Caller): Promise<ClientColumnField[]> {
  const base: readonly string[] = BASE_COLUMNS;
  return (await clientFields(database.db, caller.access)).filter((field) => !base.includes(field.key));
}

/** Line breaks inside a record's values: each is a physical line of the file (line endings are LF by now). */
function breaksIn(record: readonly string[]): number {
  let n = 0;
  for (const value of record) for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) n++;
  return n;
}

/** `email must match format "email"; tier has unknown options: x`: a row's problems, named by column. */
function describe(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.path.replace(/^body\.customFields\.|^body\./, '')} ${p.message}`).join('; ');
}

/** The header: each cell a known column, once; the required ones present. One 400 listing every problem. */
function readHeader(record: readonly string[], fields: readonly ClientColumnField[]): Column[] {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const columns: Column[] = [];
  for (const [i, cell] of record.entries()) {
    const name = normalizeColumn(cell);
    const path = `header.${name || i + 1}`;
    if (seen.has(name)) problems.push({ path, message: 'is given twice' });
    seen.add(name);
    const base = BASE_COLUMNS.find((column) => column === name);
    const field = byKey.get(name);
    if (base) columns.push({ kind: 'base', name: base });
    else if (field) columns.push({ kind: 'field', field });
    else problems.push({ path, message: name ? 'is not a column' : 'is empty' });
  }
  for (const name of REQUIRED_COLUMNS) if (!seen.has(name)) problems.push({ path: `header.${name}`, message: 'is required' });
  if (problems.length === 0) return columns;
  const known = [...BASE_COLUMNS, ...fields.map((field) => field.key)].join(', ');
  const unknown = problems.filter((p) => p.message === 'is not a column').map((p) => p.path.slice('header.'.length));
  throw errors.badRequest(
    unknown.length > 0 && unknown.length === problems.length
      ? `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the columns are ${known}.`
      : `The header row is invalid (${describe(problems)}): the columns are ${known}.`,
    problems,
  );
}

/**
 * A custom field's cell as the API takes its value: text as written; other types trimmed; multiSelect
 * as a list split on `;` (each item an option id, key or label); an address as a JSON object.
 */
function fieldValue(field: ClientColumnField, cell: string): { value: unknown } | { problem: string } {
  if (field.type === 'text') return { value: restore(cell) };
  const text = restore(cell.trim());
  if (field.type === 'multiSelect') {
    const items = text
      .split(OPTION_SEPARATOR)
      .map((item) => item.trim())
      .filter((item) => item !== '');
    // A label is taken for its option (ids and keys are the API's own and pass as they are).
    const byLabel = new Map(field.options.map((o) => [o.label.toLowerCase(), o.id]));
    return { value: items.map((item) => byLabel.get(item.toLowerCase()) ?? item) };
  }
  if (field.type === 'address') {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { problem: 'must be an address as a JSON object, e.g. {"city": "Paris", "country": "FR"}' };
    }
  }
  return { value: text };
}

/** A record as POST /v1/clients' body (and a company name), or what is wrong with it. */
function toRow(tools: ImportTools, line: number, record: readonly string[], columns: readonly Column[]): Row | RowError {
  const { clientCreate, companyName, schemaProblems } = tools;
  if (record.length !== columns.length) {
    return { line, message: `has ${record.length} field${record.length === 1 ? '' : 's'}, the header has ${columns.length}` };
  }
  // PostgreSQL cannot store it (the API refuses it in JSON bodies too): the row, not the batch, fails.
  const nul = record.findIndex((cell) => cell.includes('\u0000'));
  if (nul !== -1) return { line, message: `${nameOf(columns[nul])} must not contain the NUL character (U+0000)` };
  const input: Record<string, string> = {};
  const customFields: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  let company: string | undefined;
  for (const [i, column] of columns.entries()) {
    const cell = record[i];
    if (column.kind === 'base') {
      const value = restore(cell.trim());
      if (value === '') continue; // an empty cell is no value: "is required" for the required ones
      if (column.name === 'company') company = value;
      else input[column.name] = value;
      continue;
    }
    if (cell.trim() === '') continue;
    const converted = fieldValue(column.field, cell);
    if ('problem' in converted) problems.push({ path: column.field.key, message: converted.problem });
    else customFields[column.field.key] = converted.value;
  }
  const body = Object.keys(customFields).length > 0 ? { ...input, customFields } : input;
  if (!clientCreate.Check(body)) problems.push(...schemaProblems(ClientCreate, body));
  if (company !== undefined && !companyName.Check(company)) {
    problems.push(...schemaProblems(Name, company).map((p) => ({ ...p, path: 'company' })));
  }
  if (problems.length > 0) {
    // In the columns' order, whoever found them.
    const position = (path: string) => {
      const at = columns.findIndex((c) => nameOf(c) === path.split('.').pop());
      return at === -1 ? columns.length : at;
    };
    return { line, message: describe(problems.sort((a, b) => position(a.path) - position(b.path))) };
  }
  return { line, input: body as ClientCreate, ...(company !== undefined ? { company } : {}) };
}

/** What a parse error means for the rows: where, and why nothing after it can be read. */
function parseProblem(error: CsvError, line: number): RowError {
  if (error.code === 'CSV_MAX_RECORD_SIZE') {
    return { line, message: `is longer than ${MAX_RECORD_BYTES} bytes: the rest of the file was not read` };
  }
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return { line, message: 'opens a quoted value that is never closed: the rest of the file was not read' };
  }
  return { line, message: `is not valid CSV (${error.message}): the rest of the file was not read` };
}

/** Finds or creates the companies named by a batch; names it has seen stay known (bounded). */
class Companies {
  private readonly ids = new Map<string, string>();
  constructor(
    private readonly database: Database,
    private readonly caller: Caller,
  ) {}

  forget() {
    this.ids.clear();
  }

  /**
   * Name key → id for these names: existing companies of that name (case-insensitively), else new ones
   * made by the companies service (each its own unit of work, with its companyCreated entry), all at once.
   */
  async resolve(names: readonly string[]): Promise<Map<string, string>> {
    const spelling = new Map<string, string>();
    for (const name of names) if (!spelling.has(nameKey(name))) spelling.set(nameKey(name), name);
    if (this.ids.size + spelling.size > MAX_CACHED_COMPANIES) this.ids.clear();
    const unknown = [...spelling.keys()].filter((key) => !this.ids.has(key));
    for (const [key, id] of await companyIdsByNameKey(this.database.db, this.caller.access, unknown)) this.ids.set(key, id);
    const missing = unknown.filter((key) => !this.ids.has(key));
    await Promise.all(
      missing.map(async (key) => {
        try {
          this.ids.set(key, (await createCompany(this.database, this.caller, { name: spelling.get(key) as string })).id);
        } catch (error) {
          // Made meanwhile by someone else: use theirs.
          if (!(error instanceof ApiError && error.statusCode === 409)) throw error;
          const found = (await companyIdsByNameKey(this.database.db, this.caller.access, [key])).get(key);
          if (!found) throw error;
          this.ids.set(key, found);
        }
      }),
    );
    return new Map([...spelling.keys()].map((key) => [key, this.ids.get(key) as string]));
  }
}

/** The import's counts and its errors list (capped). */
class Tally {
  created = 0;
  skipped = 0;
  readonly errors: RowError[] = [];
  truncated = false;

  fail(error: RowError) {
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push(error);
    else this.truncated = true;
  }

  result(): ImportResult {
    return {
      created: this.created,
      skipped: this.skipped,
      errors: this.errors,
      ...(this.truncated ? { truncatedErrors: true as const } : {}),
    };
  }
}

/**
 * Creates one batch of rows with POST /v1/clients' rules (clients.service prepareClients/commitClients):
 * rows refused, rows whose email exists, then the companies the others name, then every client of the
 * batch in one unit of work. A commit that fails on a change made since the checks is checked again.
 * The batch's refused rows are reported in line order once it is committed.
 */
async function importBatch(database: Database, caller: Caller, entries: readonly (Row | RowError)[], companies: Companies, tally: Tally) {
  const rows = entries.filter((entry): entry is Row => 'input' in entry);
  for (let attempt = 1; ; attempt++) {
    const prepared = await prepareClients(
      database,
      caller,
      rows.map((row) => row.input),
    );
    const refused = entries.filter((entry): entry is RowError => 'message' in entry);
    let skipped = 0;
    const ready: { row: Row; client: CheckedClient }[] = [];
    prepared.forEach((outcome, i) => {
      if ('error' in outcome) refused.push({ line: rows[i].line, message: describe(problemsOf(outcome.error)) });
      else if ('exists' in outcome) skipped++;
      else ready.push({ row: rows[i], client: outcome.ready });
    });
    const ids = await companies.resolve(ready.flatMap(({ row }) => row.company ?? []));
    const clients = ready.map(({ row, client }) =>
      row.company === undefined ? client : { ...client, input: { ...client.input, companyId: ids.get(nameKey(row.company)) } },
    );
    try {
      await commitClients(database, caller, clients, 'import');
    } catch (error) {
      if (!(error instanceof ApiError) || attempt === COMMIT_ATTEMPTS) throw error;
      companies.forget();
      continue;
    }
    tally.created += clients.length;
    tally.skipped += skipped;
    for (const error of refused.sort((a, b) => a.line - b.line)) tally.fail(error);
    return;
  }
}

const problemsOf = (error: ApiError): FieldProblem[] =>
  Array.isArray(error.data) && error.data.length > 0 ? (error.data as FieldProblem[]) : [{ path: 'row', message: error.message }];

/**
 * Imports clients from a CSV stream (read as it arrives, never whole): the header, then each row
 * checked like POST /v1/clients' body and created with creationMethod `import`, BATCH_ROWS per unit
 * of work. A row whose email exists in the workspace (or earlier in the file) is skipped; a bad row is
 * reported with its line and the import goes on. Throws for the header (400) and for an unknown
 * workspace (404), before any row is imported.
 */
export async function importClients(
  database: Database,
  clock: Clock,
  workspaceId: string,
  source: Readable,
  options: ImportOptions = {},
): Promise<ImportResult> {
  importTools ??= loadImportTools();
  const tools = await importTools;
  const { parse, CsvError } = tools;
  const start = systemCaller(workspaceId, clock.now());
  const fields = await csvFields(database, start);
  const companies = new Companies(database, start);
  const tally = new Tally();
  const counter = new LineEndings();
  const parser = parse({
    info: true,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const fed = pipeline(source, counter, parser);
  let columns: Column[] | undefined;
  let rows: (Row | RowError)[] = [];
  let read = 0;
  let lastLine = 0;
  /** Bytes up to the end of the last record read (the parser reads ahead of the rows committed). */
  let parsedBytes = 0;
  const flush = async () => {
    if (rows.length === 0) return;
    const batch = rows;
    rows = [];
    await importBatch(database, systemCaller(workspaceId, clock.now()), batch, companies, tally);
    options.onProgress?.({ rows: read, bytes: parsedBytes });
  };
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      const line = info.lines - breaksIn(record);
      lastLine = info.lines;
      parsedBytes = info.bytes;
      if (!columns) {
        columns = readHeader(record, fields);
        continue;
      }
      read++;
      // A row of empty cells (what spreadsheets leave at the end) is a blank line.
      if (record.every((cell) => cell.trim() === '')) continue;
      rows.push(toRow(tools, line, record, columns));
      if (rows.length >= BATCH_ROWS) await flush();
    }
  } catch (error) {
    if (!(error instanceof CsvError) || !columns) {
      parser.destroy();
      await fed.catch(() => {});
      if (error instanceof CsvError) throw errors.badRequest(`The header row is not valid CSV: ${error.message}`);
      throw error;
    }
    await flush();
    tally.fail(parseProblem(error, lastLine + 1));
    options.onProgress?.({ rows: read, bytes: counter.bytes });
    await fed.catch(() => {});
    return tally.result();
  }
  await fed;
  if (!columns) throw errors.badRequest('The file is empty: its first line must be the header (email, givenName, familyName, …).');
  await flush();
  options.onProgress?.({ rows: read, bytes: counter.bytes });
  return tally.result();
}

/** A stored custom field value as its cell: what the import reads back (multiSelect as labels, or keys when a label holds `;`). */
function fieldCell(field: ClientColumnField, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) {
    const options = new Map(field.options.map((o) => [o.id, o]));
    return value
      .map((id: string) => {
        const option = options.get(id);
        if (!option) return id;
        return option.label.includes(OPTION_SEPARATOR) ? option.key : option.label;
      })
      .join(`${OPTION_SEPARATOR} `);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The workspace's clients as CSV, oldest first, in the import's columns: a generator of text chunks
 * (the header, then one chunk per page of EXPORT_PAGE clients read by keyset), so no more than a page
 * is ever held. `company` is the client's primary company (`companyId`), empty for a placeholder (an
 * import then makes a new placeholder). `count.exported` grows as pages are read.
 */
export async function clientsCsv(database: Database, caller: Caller, count: { exported: number } = { exported: 0 }) {
  const fields = await csvFields(database, caller);
  async function* chunks(): AsyncGenerator<string> {
    yield csvRecord([...BASE_COLUMNS, ...fields.map((field) => field.key)]);
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await clientsInCreationOrder(database.db, caller.access, after, EXPORT_PAGE);
      if (page.length === 0) return;
      const names = await companyNames(database.db, caller.access, [...new Set(page.map((client) => client.companyId))]);
      let text = '';
      for (const client of page) {
        text += csvRecord([
          client.email,
          client.givenName,
          client.familyName,
          names.get(client.companyId) ?? '',
          ...fields.map((field) => fieldCell(field, client.customFields[field.key])),
        ]);
      }
      count.exported += page.length;
      yield text;
      if (page.length < EXPORT_PAGE) return;
      const last = page[page.length - 1];
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return chunks();
}
