// Who a task is for, as the staff's task pages choose it (task-board.tsx, task-templates.tsx): no one, the person
// themself, a member of staff (the team's list, a page at a time), a client or a company (found by a search on the
// server). The chooser's controls are form fields (`assigneeKind`, `assigneeId`): a form reads them with `assigneeOf`.
import { FindInput } from '../../../kit/list.js';
import { useState } from 'preact/hooks';
import { ok, v1 } from '../api.js';
import { ErrorMessage, Field } from '../ui.js';

/** A task's assignee as the API takes it: one of the three ids, or none. */
export interface Assignee {
  internalUserId?: string;
  clientId?: string;
  companyId?: string;
}

export type AssigneeKind = '' | 'me' | 'internalUser' | 'client' | 'company';

const KIND_FIELD: Record<'internalUser' | 'client' | 'company', keyof Assignee> = {
  internalUser: 'internalUserId',
  client: 'clientId',
  company: 'companyId',
};

/**
 * The assignee a form's chooser names: `{}` for its first choice (no one, anyone, or keep), the person for "me",
 * else the id chosen; undefined when a kind is chosen without an id.
 */
export function assigneeOf(data: FormData, me: string): Assignee | undefined {
  const kind = String(data.get('assigneeKind') ?? '') as AssigneeKind;
  const id = String(data.get('assigneeId') ?? '');
  if (kind === '') return {};
  if (kind === 'me') return { internalUserId: me };
  return id ? { [KIND_FIELD[kind]]: id } : undefined;
}

interface Choice {
  id: string;
  label: string;
}

const personName = (p: { givenName: string; familyName: string; email: string }) => `${p.givenName} ${p.familyName}`.trim() || p.email;

/**
 * The chooser: a kind, then for a member of staff a list read a page at a time (**More staff**), for a client or a
 * company a search (**Find**, `q` on the server) and the first 20 it finds. `none` names the first choice.
 */
export function AssigneeChooser({ legend, none, error }: { legend: string; none: string; error?: unknown }) {
  const [kind, setKind] = useState<AssigneeKind>('');
  const [q, setQ] = useState('');
  const [choices, setChoices] = useState<Choice[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [failed, setFailed] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const load = async (which: AssigneeKind, search: string, nextToken?: string) => {
    setFailed(null);
    setBusy(true);
    try {
      const query = search ? { q: search, limit: 20 } : { limit: 20 };
      if (which === 'client') {
        const page = await ok(v1.GET('/v1/clients', { params: { query } }));
        setChoices(page.data.map((c) => ({ id: c.id, label: `${personName(c)} (${c.email})` })));
      } else if (which === 'company') {
        const page = await ok(v1.GET('/v1/companies', { params: { query } }));
        setChoices(page.data.map((c) => ({ id: c.id, label: c.name })));
      } else if (which === 'internalUser') {
        const page = await ok(v1.GET('/v1/internal-users', { params: { query: { limit: 50, ...(nextToken ? { nextToken } : {}) } } }));
        const more = page.data.map((u) => ({ id: u.id, label: personName(u) }));
        setChoices((before) => (nextToken ? [...before, ...more] : more));
        setNext(page.nextToken ?? undefined);
      }
    } catch (e) {
      setFailed(e);
    } finally {
      setBusy(false);
    }
  };

  const choose = (which: AssigneeKind) => {
    setKind(which);
    setChoices([]);
    setNext(undefined);
    setQ('');
    if (which === 'client' || which === 'company' || which === 'internalUser') void load(which, '');
  };
  const searched = kind === 'client' || kind === 'company';
  const what = kind === 'client' ? 'Client' : kind === 'company' ? 'Company' : 'Member of staff';
  return (
    <fieldset class="assignee">
      <legend>{legend}</legend>
      <Field label="Who" name="assigneeKind">
        {(props) => (
          <select {...props} value={kind} onChange={(event) => choose(event.currentTarget.value as AssigneeKind)}>
            <option value="">{none}</option>
            <option value="me">Me</option>
            <option value="internalUser">A member of staff</option>
            <option value="client">A client</option>
            <option value="company">A company</option>
          </select>
        )}
      </Field>
      {searched ? (
        <Field label={`Find a ${kind}`} hint="A word of the name, then Find">
          {(props) => <FindInput props={props} value={q} onValue={setQ} onFind={() => void load(kind, q.trim())} />}
        </Field>
      ) : null}
      {kind === 'client' || kind === 'company' || kind === 'internalUser' ? (
        <>
          <Field label={what} name={KIND_FIELD[kind]} error={error}>
            {(props) => (
              <select {...props} name="assigneeId" required>
                <option value="">{busy ? 'Looking…' : choices.length === 0 ? 'None found' : 'Choose one'}</option>
                {choices.map((choice) => (
                  <option key={choice.id} value={choice.id}>
                    {choice.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {kind === 'internalUser' && next ? (
            <button type="button" class="secondary" disabled={busy} onClick={() => void load(kind, '', next)}>
              More staff
            </button>
          ) : null}
          <ErrorMessage error={failed} />
        </>
      ) : null}
    </fieldset>
  );
}
