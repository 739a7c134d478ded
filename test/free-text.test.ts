// Issue 29, point 3 (a): the free text of the new families (messages, files, tasks, notes, forms, contracts) holds no
// control character (U+0000–U+001F, U+007F–U+009F) other than tab, line feed and carriage return (one-line names,
// titles and paths: tab only). Another is a 400 naming the field, and nothing is written. The rule is one shared type
// per kind of text (Text, NonBlankText, Line in src/lib/schemas.ts), whose patterns are linear in the text's length.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { adminRequest, populatedWorkspace, sessionKeyFor } from './helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from './helpers/harness.js';

const TEXT = 'must have no control characters other than tab, line feed and carriage return, and no lone surrogates';
const NON_BLANK = `must have a character other than white space, and no control characters other than tab, line feed and carriage return, and no lone surrogates`;
const LINE = 'must be one line with a character other than white space, no control characters other than tab, and no lone surrogates';

/** The 400 naming one field. */
const refused = (path: string, message: string) => ({ code: 'bad_request', message: `${path} ${message}`, data: [{ path, message }] });

/** A workspace with a client in a company, its message and file channels, a task, a note, a form response and a contract. */
async function world(h: Harness) {
  const { ws, app, client, company } = await populatedWorkspace(h);
  const call = async (method: InjectOptions['method'], url: string, payload: object, key = ws.apiKey) =>
    h.as(key, { method, url, payload });
  const ok = async (method: InjectOptions['method'], url: string, payload: object) => {
    const res = url.startsWith('/admin') ? await adminRequest(h, method as 'POST', url, payload) : await call(method, url, payload);
    assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
    return res.json();
  };
  const admin = `/admin/workspaces/${ws.workspaceId}`;
  const messageChannel = await ok('POST', '/v1/message-channels', { membershipType: 'individual', clientId: client.id });
  const fileChannel = await ok('POST', '/v1/channels/files', { membershipType: 'individual', clientId: client.id });
  const task = await ok('POST', '/v1/tasks', { name: 'Task', companyId: company.id });
  const note = await ok('POST', '/v1/notes', { entityType: 'company', entityId: company.id, title: 'Note' });
  const form = await ok('POST', `${admin}/forms`, { name: 'Form', formFields: [{ title: 'Q', type: 'longAnswer' }] });
  const formResponse = await ok('POST', '/v1/form-responses', { formId: form.id, clientIds: [client.id] });
  const template = await ok('POST', `${admin}/contract-templates`, {
    name: 'Template',
    fields: [
      { id: 'sig', type: 'signature', inputType: 'client' },
      { id: 'v', type: 'text', inputType: 'variable' },
    ],
  });
  const contract = await ok('POST', '/v1/contracts', { contractTemplateId: template.id, clientId: client.id, variableValues: { v: 'x' } });
  const clientSession = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
  return {
    h,
    ws,
    client,
    company,
    call,
    admin,
    messageChannel,
    fileChannel,
    task,
    note,
    form,
    formResponse,
    template,
    contract,
    clientSession,
  };
}

type World = Awaited<ReturnType<typeof world>>;

/** Each free-text field of the new families, a request that puts `text` in it, and its rule's message. */
function cases(w: World) {
  const c = w.client.id;
  return [
    {
      field: 'body.text',
      message: NON_BLANK,
      send: (text: string) => w.call('POST', '/v1/messages', { channelId: w.messageChannel.id, senderId: c, text }),
    },
    {
      field: 'body.path',
      message: LINE,
      send: (text: string) => w.call('POST', '/v1/files/file', { channelId: w.fileChannel.id, path: text }),
    },
    {
      field: 'body.linkUrl',
      message: TEXT,
      send: (text: string) =>
        w.call('POST', '/v1/files/link', { channelId: w.fileChannel.id, path: 'l', linkUrl: `https://x.test/${text}` }),
    },
    {
      field: 'body.path',
      message: LINE,
      send: (text: string) => w.call('POST', '/v1/file', { type: 'folder', channelID: w.fileChannel.id, path: text }),
    },
    { field: 'body.name', message: LINE, send: (text: string) => w.call('POST', '/v1/tasks', { name: text, companyId: w.company.id }) },
    { field: 'body.description', message: TEXT, send: (text: string) => w.call('PATCH', `/v1/tasks/${w.task.id}`, { description: text }) },
    {
      field: 'body.subTaskTemplates.0.name',
      message: LINE,
      send: (text: string) => adminRequest(w.h, 'POST', `${w.admin}/task-templates`, { name: 'T', subTaskTemplates: [{ name: text }] }),
    },
    {
      field: 'body.title',
      message: LINE,
      send: (text: string) => w.call('POST', '/v1/notes', { entityType: 'company', entityId: w.company.id, title: text }),
    },
    { field: 'body.content', message: TEXT, send: (text: string) => w.call('PATCH', `/v1/notes/${w.note.id}`, { content: text }) },
    {
      field: 'body.formFields.0.description',
      message: TEXT,
      send: (text: string) =>
        adminRequest(w.h, 'POST', `${w.admin}/forms`, { name: 'F', formFields: [{ title: 'Q', description: text, type: 'shortAnswer' }] }),
    },
    {
      field: `body.answers.${w.form.formFieldIds[0]}`,
      message: TEXT,
      send: (text: string) =>
        w.call(
          'POST',
          `/v1/form-responses/${w.formResponse.id}/complete`,
          { answers: { [w.form.formFieldIds[0]]: text } },
          w.clientSession,
        ),
    },
    {
      field: 'body.fields.0.label',
      message: TEXT,
      send: (text: string) =>
        adminRequest(w.h, 'POST', `${w.admin}/contract-templates`, {
          name: 'C',
          fields: [{ type: 'text', inputType: 'client', label: text }],
        }),
    },
    {
      field: 'body.variableValues.v',
      message: TEXT,
      send: (text: string) =>
        w.call('POST', '/v1/contracts', { contractTemplateId: w.template.id, clientId: c, variableValues: JSON.stringify({ v: text }) }),
    },
    {
      field: 'body.values.sig',
      message: TEXT,
      send: (text: string) => w.call('POST', `/v1/contracts/${w.contract.id}/sign`, { values: { sig: text } }, w.clientSession),
    },
  ];
}

/** What a lone surrogate anywhere in a JSON body is told (src/plugins/request-guards.ts), before any schema sees it. */
const LONE = 'must not contain a lone surrogate (U+D800–U+DFFF without its pair)';

/** A request whose JSON text is written as given (a JSON.stringify of a lone surrogate writes it escaped, as a client would). */
const raw = (w: World, method: InjectOptions['method'], url: string, json: string, key = w.ws.apiKey) =>
  w.h.as(key, { method, url, payload: json, headers: { 'content-type': 'application/json' } });

for (const backend of BACKENDS) {
  describe(`free text refuses control characters [${backend}]`, () => {
    test('a control character in any free-text field of messages, files, tasks, notes, forms and contracts is a 400 naming it; nothing is written', async (t) => {
      const harness = await adminHarness(t, backend);
      const w = await world(harness);
      const before = (await harness.as(w.ws.apiKey, { method: 'GET', url: '/v1/audit-logs?limit=1000' })).json().data.length;
      for (const { field, message, send } of cases(w)) {
        // C0 (NUL aside: the request guard names it first), DEL and C1; vertical tab and form feed are controls too.
        for (const control of ['\u0001', '\u001b', '\u000b', '\u000c', '\u007f', '\u0085', '\u009f']) {
          const res = await send(`a${control}b`);
          const what = `${field} with U+${control.charCodeAt(0).toString(16).padStart(4, '0')}: ${res.body}`;
          assert.equal(res.statusCode, 400, what);
          assert.deepEqual(res.json(), refused(field, message), what);
        }
      }
      const after = (await harness.as(w.ws.apiKey, { method: 'GET', url: '/v1/audit-logs?limit=1000' })).json().data.length;
      assert.equal(after, before, 'no change recorded: nothing was written');
    });

    // Rule (issue 42, point 12): a lone surrogate (U+D800–U+DFFF without its pair, which a JSON escape can write but no
    // UTF-8 can hold) in any free-text field is a 400 naming the field, and nothing is written: SQLite stored three U+FFFD
    // for each, PostgreSQL one, so the text changed silently (and grew past its limit). A text parsed later from JSON text
    // (a contract's variableValues) is held to it by its schema. A pair, escaped or not, is one character and is kept.
    test('a lone surrogate in any free-text field is a 400 naming the field; nothing is written; a pair is kept', async (t) => {
      const harness = await adminHarness(t, backend);
      const w = await world(harness);
      const audit = async () => (await harness.as(w.ws.apiKey, { method: 'GET', url: '/v1/audit-logs?limit=1000' })).json().data.length;
      const before = await audit();
      for (const { field, message, send } of cases(w)) {
        // Nested JSON text reaches the schema, not the request's guard (which words its 400 as it does a NUL's): the
        // schema's own rule says it.
        const nested = field === 'body.variableValues.v';
        const expected = nested ? refused(field, message) : { ...refused(field, LONE), message: `${field}: ${LONE}` };
        for (const lone of ['\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800']) {
          const res = await send(`a${lone}b`);
          const what = `${field} with ${JSON.stringify(lone)}: ${res.body}`;
          assert.equal(res.statusCode, 400, what);
          assert.deepEqual(res.json(), expected, what);
        }
      }
      assert.equal(await audit(), before, 'no change recorded: nothing was written');
      // A pair written as two escapes is one character: kept as sent, on both backends.
      const pair = await raw(
        w,
        'POST',
        '/v1/messages',
        `{"channelId":"${w.messageChannel.id}","senderId":"${w.client.id}","text":"\\ud83c\\udf89 \\u00e9"}`,
      );
      assert.equal(pair.statusCode, 200, pair.body);
      assert.equal(pair.json().text, '🎉 é');
      const listed = await harness.as(w.ws.apiKey, { method: 'GET', url: `/v1/messages?channelId=${w.messageChannel.id}` });
      assert.deepEqual(
        listed.json().data.map((m: { text: string }) => m.text),
        ['🎉 é'],
        'stored as one character',
      );
      // An escaped backslash before a u is text, not an escape.
      const text = await raw(
        w,
        'POST',
        '/v1/messages',
        `{"channelId":"${w.messageChannel.id}","senderId":"${w.client.id}","text":"\\\\ud800"}`,
      );
      assert.equal(text.statusCode, 200, text.body);
      assert.equal(text.json().text, '\\ud800');
    });

    test('tab, line feed and carriage return are text; one-line fields take a tab only; white space alone is no name', async (t) => {
      const harness = await adminHarness(t, backend);
      const w = await world(harness);
      const note = await w.call('PATCH', `/v1/notes/${w.note.id}`, { title: 'A\ttitle', content: '<p>a</p>\r\n\t<p>b</p>' });
      assert.equal(note.statusCode, 200, note.body);
      assert.deepEqual([note.json().title, note.json().content], ['A\ttitle', '<p>a</p>\r\n\t<p>b</p>']);
      const message = await w.call('POST', '/v1/messages', {
        channelId: w.messageChannel.id,
        senderId: w.client.id,
        text: 'line\r\nline\ttab',
      });
      assert.equal(message.statusCode, 200, message.body);
      assert.deepEqual((await w.call('PATCH', `/v1/tasks/${w.task.id}`, { name: 'Two\nlines' })).json(), refused('body.name', LINE));
      assert.deepEqual((await w.call('PATCH', `/v1/tasks/${w.task.id}`, { name: ' \t ' })).json(), refused('body.name', LINE));
      assert.deepEqual(
        (await w.call('POST', '/v1/messages', { channelId: w.messageChannel.id, senderId: w.client.id, text: ' \r\n\t' })).json(),
        refused('body.text', NON_BLANK),
      );
      // Beyond Latin-1 is text: a no-break space, a line separator, an emoji.
      const wide = await w.call('PATCH', `/v1/tasks/${w.task.id}`, { name: '\u00a0Ünïcödé\u2028 ✓ 🎉' });
      assert.equal(wide.statusCode, 200, wide.body);
    });

    test('the patterns are linear: a 1 MiB name ending in a newline is refused in milliseconds, not minutes', async (t) => {
      const harness = await adminHarness(t, backend);
      const w = await world(harness);
      // `^[^\r\n]*\S[^\r\n]*$`, the one-line rule before, backtracked quadratically: 40,000 characters took a second.
      for (const name of [`${'a'.repeat(1_000_000)}\n`, `${' '.repeat(1_000_000)}\u0001`]) {
        const started = performance.now();
        const res = await w.call('POST', '/v1/tasks', { name, companyId: w.company.id });
        const ms = performance.now() - started;
        assert.equal(res.statusCode, 400, res.body.slice(0, 200));
        assert.deepEqual(
          res.json().data.map((p: { path: string }) => p.path),
          ['body.name', 'body.name'],
          'over 255 characters, and not one line',
        );
        assert.ok(ms < 1000, `answered in ${Math.round(ms)} ms`);
      }
    });
  });
}
