// The staff's task templates (/tasks/templates): the workspace's templates a page at a time (`GET /v1/task-templates`),
// a task made from one (its name, description and steps; who it is for and when it is due chosen here); an admin also
// creates, edits and deletes them (the API refuses other staff: they see no such control).
import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { CreatePanel, DataTable, EditRow, ListState, Pager, usePaged } from '../../../kit/list.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { Field, PageHeading, Status, latest, useAction } from '../../../kit/ui.js';
import { ok, v1 } from '../api.js';
import { Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage } from '../ui.js';
import { AssigneeChooser, assigneeOf } from './task-assignee.js';
import { dueOf } from './task-board.js';

type Template = Item<'/v1/task-templates'>;

/** The steps as typed: one a line, blank lines left out. */
const stepsOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((name) => ({ name }));

export function TaskTemplatesPage() {
  const { staff, person, workspace } = useSignedIn();
  const admin = staff?.role === 'admin';
  const list = usePaged((nextToken) => ok(v1.GET('/v1/task-templates', { params: { query: { limit: 20, nextToken } } })), []);
  const [open, setOpen] = useState<{ id: string; form: 'edit' | 'task' } | null>(null);
  const edit = useAction();
  const remove = useAction();
  const make = useAction();
  const create = useAction();
  const makeKey = useOnceKey();
  const createKey = useOnceKey();
  const rows = list.data?.data ?? [];
  const deleteTemplate = (template: Template) =>
    remove.runIfConfirmed(`Delete the template “${template.name}”? Tasks made from it stay.`, async () => {
      await ok(v1.DELETE('/v1/task-templates/{id}', { params: { path: { id: template.id } } }));
      list.reload();
      return `The template “${template.name}” was deleted.`;
    });
  return (
    <>
      <PageHeading title="Task templates" context={workspace.name} />
      <p>
        <Link href="/tasks">All tasks</Link>
      </p>
      <Status>{latest(edit, remove, make, create)}</Status>
      <ErrorMessage error={remove.error} focus />
      <ListState list={list} what="task templates" empty="No task template yet." />
      {rows.length > 0 ? (
        <DataTable caption="Task templates, newest first" columns={['Template', 'Description', 'Steps']} actions>
          {rows.map((template) =>
            open?.id === template.id && open.form === 'edit' ? (
              <EditRow
                key={template.id}
                columns={4}
                label={`Edit ${template.name}`}
                action={edit}
                close={() => setOpen(null)}
                save={async (data) => {
                  const body = {
                    name: String(data.get('name') ?? '').trim(),
                    description: String(data.get('description') ?? ''),
                    subTaskTemplates: stepsOf(String(data.get('steps') ?? '')),
                  };
                  const saved = await ok(v1.PATCH('/v1/task-templates/{id}', { params: { path: { id: template.id } }, body }));
                  list.reload();
                  return `The template “${saved.name}” was saved.`;
                }}
              >
                <ErrorMessage error={edit.error} />
                <TemplateFields template={template} error={edit.error} />
              </EditRow>
            ) : open?.id === template.id && open.form === 'task' ? (
              <EditRow
                key={template.id}
                columns={4}
                label={`New task from ${template.name}`}
                action={make}
                close={() => setOpen(null)}
                save={async (data) => {
                  const assignee = assigneeOf(data, person.id);
                  if (assignee === undefined) throw new Error('Choose who the task is for, or No one.');
                  const due = dueOf(String(data.get('dueDate') ?? ''));
                  const body = { templateId: template.id, ...assignee, ...(due ? { dueDate: due } : {}) };
                  const task = await once(makeKey, JSON.stringify(body), (k) =>
                    ok(v1.POST('/v1/tasks', { params: { header: { 'idempotency-key': k } }, body })),
                  );
                  return `The task “${task.name}” was created from the template.`;
                }}
              >
                <ErrorMessage error={make.error} />
                <p>
                  A task named <strong>{template.name}</strong>
                  {template.subTaskTemplates.length === 0
                    ? ''
                    : `, with its ${template.subTaskTemplates.length === 1 ? 'step' : `${template.subTaskTemplates.length} steps`}`}
                  .
                </p>
                <Field label="Due date" name="dueDate" error={make.error}>
                  {(props) => <input {...props} type="date" />}
                </Field>
                <AssigneeChooser legend="Assigned to" none="No one" error={make.error} />
              </EditRow>
            ) : (
              <tr key={template.id}>
                <td data-label="Template" class="break">
                  {template.name}
                </td>
                <td data-label="Description" class="break">
                  {template.description || '—'}
                </td>
                <td data-label="Steps">
                  {template.subTaskTemplates.length === 0 ? 'None' : template.subTaskTemplates.map((sub) => sub.name).join(', ')}
                </td>
                <td class="actions">
                  <button
                    type="button"
                    onClick={() => setOpen({ id: template.id, form: 'task' })}
                    aria-label={`New task from it: ${template.name}`}
                  >
                    New task from it
                  </button>
                  {admin ? (
                    <>
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => setOpen({ id: template.id, form: 'edit' })}
                        aria-label={`Edit: ${template.name}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        class="danger"
                        disabled={remove.busy}
                        onClick={() => deleteTemplate(template)}
                        aria-label={`Delete: ${template.name}`}
                      >
                        Delete
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ),
          )}
        </DataTable>
      ) : null}
      <Pager list={list} label="Task templates" />
      {admin ? (
        <CreatePanel
          id="new-template"
          title="New template"
          submitLabel={create.busy ? 'Creating…' : 'Create the template'}
          action={create}
          create={async (data) => {
            const description = String(data.get('description') ?? '');
            const steps = stepsOf(String(data.get('steps') ?? ''));
            const body = {
              name: String(data.get('name') ?? '').trim(),
              ...(description ? { description } : {}),
              ...(steps.length > 0 ? { subTaskTemplates: steps } : {}),
            };
            const made = await once(createKey, JSON.stringify(body), (k) =>
              ok(v1.POST('/v1/task-templates', { params: { header: { 'idempotency-key': k } }, body })),
            );
            list.first();
            list.reload();
            return `The template “${made.name}” was created.`;
          }}
        >
          <TemplateFields error={create.error} />
        </CreatePanel>
      ) : (
        <p class="hint">Admins create, edit and delete templates.</p>
      )}
    </>
  );
}

function TemplateFields({ template, error }: { template?: Template; error: unknown }) {
  return (
    <>
      <Field label="Name" name="name" error={error}>
        {(props) => <input {...props} required maxLength={255} defaultValue={template?.name ?? ''} autocomplete="off" />}
      </Field>
      <Field label="Description" name="description" error={error}>
        {(props) => <textarea {...props} rows={3} maxLength={10_000} defaultValue={template?.description ?? ''} />}
      </Field>
      <Field label="Steps" name="subTaskTemplates" hint="One a line (at most 20): each becomes a step of the task" error={error}>
        {(props) => (
          <textarea {...props} name="steps" rows={3} defaultValue={(template?.subTaskTemplates ?? []).map((sub) => sub.name).join('\n')} />
        )}
      </Field>
    </>
  );
}
