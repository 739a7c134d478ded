// The staff's notes on a client or a company (`/v1/notes`): newest first, a page at a time; a new note (an
// Idempotency-Key per create), each edited in place or deleted after a confirmation. A note's content is HTML that the
// API stores as given and does not sanitize: it is shown here as text (parsed inert, never inserted as HTML), and
// what is typed here is sent escaped.
import { useId, useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { Pager, usePaged } from '../../../kit/list.js';
import { newKey } from '../../../kit/once.js';
import { ok, v1 } from '../api.js';
import { useNames } from '../names.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage, Field, LoadFailed, Loading, Status, Submit, useAction } from '../ui.js';
import { latest } from '../../../kit/ui.js';

type Note = Item<'/v1/notes'>;
type Entity = Note['entityType'];

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Typed text as HTML: a paragraph per blank-line-separated block, a line break per line. */
function textToHtml(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .filter((block) => block.trim())
    .map((block) => `<p>${escapeHtml(block.trim()).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** A note's HTML as text (DOMParser makes an inert document: nothing in it runs or loads), its paragraphs and breaks kept. */
function htmlToText(html: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  for (const br of Array.from(body.querySelectorAll('br'))) br.replaceWith('\n');
  const blocks = Array.from(body.querySelectorAll('p, div, li, h1, h2, h3, h4, h5, h6'));
  for (const block of blocks) block.append('\n\n');
  return (body.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function NotesPanel({ entityType, entityId }: { entityType: Entity; entityId: string }) {
  const headingId = useId();
  const { person } = useSignedIn();
  const list = usePaged(
    async (nextToken) => ok(v1.GET('/v1/notes', { params: { query: { entityType, entityId, nextToken, limit: 20 } } })),
    [entityType, entityId],
  );
  const notes = list.data?.data ?? [];
  const name = useNames(
    person,
    notes.map((note) => ['internalUser', note.creatorId] as ['internalUser', string]),
  );
  const add = useAction();
  const change = useAction();
  const [editing, setEditing] = useState<string | null>(null);
  const [addKey, setAddKey] = useState(newKey);
  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const content = String(data.get('content') ?? '');
    void add.run(async () => {
      await ok(
        v1.POST('/v1/notes', {
          params: { header: { 'idempotency-key': addKey } },
          body: {
            entityType,
            entityId,
            title: String(data.get('title') ?? '').trim(),
            ...(content.trim() ? { content: textToHtml(content) } : {}),
          },
        }),
      );
      setAddKey(newKey());
      form.reset();
      list.first();
      list.reload();
      return 'The note was added.';
    });
  };
  const remove = (note: Note) =>
    change.runIfConfirmed(`Delete the note “${note.title}”?`, async () => {
      await ok(v1.DELETE('/v1/notes/{id}', { params: { path: { id: note.id } } }));
      list.reload();
      return `The note “${note.title}” was deleted.`;
    });
  return (
    <section class="panel notes" aria-labelledby={headingId}>
      <h2 id={headingId}>Notes</h2>
      <Status>{latest(add, change)}</Status>
      {list.loading && !list.data ? <Loading>Loading the notes…</Loading> : null}
      {list.error ? <LoadFailed error={list.error} retry={list.reload} codes /> : null}
      {list.data && notes.length === 0 ? <p class="empty">No notes yet.</p> : null}
      <ErrorMessage error={editing ? null : change.error} focus codes />
      {notes.length > 0 ? (
        <ul class="notes-list">
          {notes.map((note) =>
            editing === note.id ? (
              <li key={note.id}>
                <EditNote
                  note={note}
                  action={change}
                  close={() => setEditing(null)}
                  saved={() => {
                    setEditing(null);
                    list.reload();
                  }}
                />
              </li>
            ) : (
              <li key={note.id}>
                <article aria-label={note.title}>
                  <h3>{note.title}</h3>
                  <p class="note-meta">
                    {name('internalUser', note.creatorId) ?? 'Someone'}, {when(note.createdAt)}
                    {note.updatedAt !== note.createdAt ? ` (edited ${when(note.updatedAt)})` : ''}
                  </p>
                  {note.content ? <p class="note-content">{htmlToText(note.content)}</p> : null}
                  <div class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit the note “${note.title}”`}
                      onClick={() => setEditing(note.id)}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete the note “${note.title}”`}
                      disabled={change.busy}
                      onClick={() => remove(note)}
                    >
                      Delete
                    </button>
                  </div>
                </article>
              </li>
            ),
          )}
        </ul>
      ) : null}
      <Pager list={list} label="Notes" />
      <h3>New note</h3>
      <ErrorMessage error={add.error} focus codes />
      <form class="note-form" onSubmit={create} aria-label="New note">
        <Field label="Title" name="title" error={add.error}>
          {(props) => <input {...props} required maxLength={255} autocomplete="off" />}
        </Field>
        <Field label="Note" name="content" error={add.error}>
          {(props) => <textarea {...props} rows={3} />}
        </Field>
        <Submit label={add.busy ? 'Adding…' : 'Add the note'} busy={add.busy} />
      </form>
    </section>
  );
}

function EditNote({
  note,
  action,
  close,
  saved,
}: {
  note: Note;
  action: ReturnType<typeof useAction>;
  close: () => void;
  saved: () => void;
}) {
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      const content = String(data.get('content') ?? '');
      await ok(
        v1.PATCH('/v1/notes/{id}', {
          params: { path: { id: note.id } },
          body: { title: String(data.get('title') ?? '').trim(), content: content.trim() ? textToHtml(content) : '' },
        }),
      );
      saved();
      return 'The note was saved.';
    });
  };
  return (
    <form class="note-form" onSubmit={submit} aria-label={`Edit the note “${note.title}”`} ref={focusTitle}>
      <ErrorMessage error={action.error} focus codes />
      <Field label="Title" name="title" error={action.error}>
        {(props) => <input {...props} required maxLength={255} defaultValue={note.title} autocomplete="off" />}
      </Field>
      <Field label="Note" name="content" error={action.error}>
        {(props) => <textarea {...props} rows={3} defaultValue={note.content ? htmlToText(note.content) : ''} />}
      </Field>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save the note'}
        </button>
        <button type="button" class="secondary" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The edit form's title takes the focus when the form opens (Edit was pressed). */
function focusTitle(form: HTMLFormElement | null) {
  form?.querySelector<HTMLInputElement>('input')?.focus();
}
