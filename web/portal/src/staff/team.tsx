import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { ListState, Pager, usePaged } from '../../../kit/list.js';
import { Field, Status, confirmed, latest, text, useAction, useLoad } from '../../../kit/ui.js';
import { ok, v1 } from '../api.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { NotFoundPage } from '../pages/not-found.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage, PageHeading } from '../ui.js';

type Member = Item<'/v1/internal-users'>;
type Role = Member['role'];

/** The companies a member may see: null for every company. */
type Companies = string[] | null;

const nameOf = (m: Member) => `${m.givenName} ${m.familyName}`.trim() || m.email;
const companiesOf = (m: Member): Companies => (m.isClientAccessLimited ? m.companyAccessList : null);
const sayCompanies = (c: Companies) => (c === null ? 'Every company' : `${c.length} compan${c.length === 1 ? 'y' : 'ies'}`);

/**
 * The team (admins only): the workspace's internal users, each with its role and companies; invite one, change one's
 * role and companies, remove one. Anyone else finds no page here (the navigation lists it for admins alone).
 */
export function TeamPage() {
  const { staff } = useSignedIn();
  if (staff?.role !== 'admin') return <NotFoundPage />;
  return <Team />;
}

function Team() {
  const { person } = useSignedIn();
  const list = usePaged((nextToken) => ok(v1.GET('/v1/internal-users', { params: { query: nextToken ? { nextToken } : {} } })), []);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useAction();
  const [said, setSaid] = useState<{ done: string | null; doneAt: number }>({ done: null, doneAt: 0 });
  const removeMember = (m: Member) => {
    if (!confirmed(`Remove ${nameOf(m)} from the team? They are signed out at once.`)) return;
    void remove.run(async () => {
      await ok(v1.DELETE('/v1/internal-users/{id}', { params: { path: { id: m.id } } }));
      list.reload();
      return `${nameOf(m)} was removed from the team.`;
    });
  };
  return (
    <>
      <PageHeading title="Team" />
      <Status>{latest(remove, said)}</Status>
      <ErrorMessage focus error={remove.error} />
      <section class="panel" aria-labelledby="team-members">
        <h2 id="team-members">Members</h2>
        <ListState list={list} what="the team" empty="The team has nobody yet." />
        {list.data && list.data.data.length > 0 ? (
          <ul class="team">
            {list.data.data.map((m) => (
              <li key={m.id}>
                <div>
                  <strong>{nameOf(m)}</strong> <span class="muted">{m.email}</span>
                </div>
                <div>
                  {m.role === 'admin' ? 'Admin' : 'Staff'} · {sayCompanies(companiesOf(m))}
                </div>
                {m.id === person.id ? (
                  <p class="muted">You (another admin changes your access).</p>
                ) : editing === m.id ? (
                  <EditMember
                    member={m}
                    close={(message) => {
                      setEditing(null);
                      if (message) {
                        setSaid({ done: message, doneAt: performance.now() });
                        list.reload();
                      }
                    }}
                  />
                ) : (
                  <div class="actions">
                    <button type="button" class="secondary" onClick={() => setEditing(m.id)} aria-label={`Change ${nameOf(m)}`}>
                      Change
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={remove.busy}
                      onClick={() => removeMember(m)}
                      aria-label={`Remove ${nameOf(m)}`}
                    >
                      Remove
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        ) : null}
        <Pager list={list} label="Team" />
      </section>
      <Invite
        invited={(message) => {
          setSaid({ done: message, doneAt: performance.now() });
          list.reload();
        }}
      />
    </>
  );
}

/** A role: staff or admin. */
function RoleField({ value, onChange, error }: { value: Role; onChange: (role: Role) => void; error: unknown }) {
  return (
    <Field label="Role" name="role" error={error}>
      {(props) => (
        <select {...props} value={value} onChange={(event) => onChange(event.currentTarget.value as Role)}>
          <option value="staff">Staff</option>
          <option value="admin">Admin</option>
        </select>
      )}
    </Field>
  );
}

/** The companies a member may see: every one, or those ticked among the ones the search (`q`) finds. */
function CompanyPicker({ value, onChange, error }: { value: Companies; onChange: (c: Companies) => void; error: unknown }) {
  const [q, setQ] = useState('');
  const found = useLoad(
    () =>
      value === null ? Promise.resolve(null) : ok(v1.GET('/v1/companies', { params: { query: q ? { q, limit: 20 } : { limit: 20 } } })),
    [q, value === null],
  );
  return (
    <fieldset class="companies">
      <legend>Companies</legend>
      <label class="check">
        <input type="checkbox" checked={value === null} onChange={(event) => onChange(event.currentTarget.checked ? null : [])} /> Every
        company
      </label>
      {value !== null ? (
        <>
          <Field label="Find a company" name="companyAccessList" error={error}>
            {(props) => <input {...props} type="search" value={q} onInput={(event) => setQ(event.currentTarget.value)} />}
          </Field>
          {found.loading ? <p role="status">Looking for companies…</p> : null}
          {found.error ? <ErrorMessage error={found.error} /> : null}
          {found.data ? (
            found.data.data.length === 0 ? (
              <p>No company matches.</p>
            ) : (
              <ul class="choices">
                {found.data.data.map((c) => (
                  <li key={c.id}>
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={value.includes(c.id)}
                        onChange={(event) => onChange(event.currentTarget.checked ? [...value, c.id] : value.filter((id) => id !== c.id))}
                      />{' '}
                      {c.name}
                    </label>
                  </li>
                ))}
              </ul>
            )
          ) : null}
          <p class="muted">{value.length === 0 ? 'No company chosen yet.' : `${sayCompanies(value)} chosen.`}</p>
        </>
      ) : null}
    </fieldset>
  );
}

/** Invite someone: added to the team and e-mailed a link to choose a password. */
function Invite({ invited }: { invited: (message: string) => void }) {
  const action = useAction();
  const key = useOnceKey();
  const [role, setRole] = useState<Role>('staff');
  const [companies, setCompanies] = useState<Companies>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => {
      const body = {
        givenName: text(form, 'givenName'),
        familyName: text(form, 'familyName'),
        email: text(form, 'email'),
        role,
        ...(companies === null ? {} : { companyAccessList: companies }),
      };
      const made = await once(key, JSON.stringify(body), (k) =>
        ok(v1.POST('/v1/internal-users', { params: { query: { sendInvite: true }, header: { 'idempotency-key': k } }, body })),
      );
      form.reset();
      setRole('staff');
      setCompanies(null);
      invited(`${nameOf(made)} was invited: an e-mail to ${made.email} lets them choose a password.`);
    });
  };
  return (
    <section class="panel" aria-labelledby="team-invite">
      <h2 id="team-invite">Invite staff</h2>
      <ErrorMessage focus error={action.error} />
      <form class="inline-form invite" onSubmit={submit}>
        <Field label="Given name" name="givenName" error={action.error}>
          {(props) => <input {...props} required autoComplete="off" />}
        </Field>
        <Field label="Family name" name="familyName" error={action.error}>
          {(props) => <input {...props} required autoComplete="off" />}
        </Field>
        <Field label="E-mail" name="email" error={action.error}>
          {(props) => <input {...props} type="email" required autoComplete="off" />}
        </Field>
        <RoleField value={role} onChange={setRole} error={action.error} />
        <CompanyPicker value={companies} onChange={setCompanies} error={action.error} />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Inviting…' : 'Invite staff'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A member's role and companies, changed. */
function EditMember({ member, close }: { member: Member; close: (message: string | null) => void }) {
  const action = useAction();
  const [role, setRole] = useState<Role>(member.role);
  const [companies, setCompanies] = useState<Companies>(companiesOf(member));
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await ok(v1.PATCH('/v1/internal-users/{id}', { params: { path: { id: member.id } }, body: { role, companyAccessList: companies } }));
      close(`${nameOf(member)}’s access was changed.`);
    });
  };
  return (
    <form class="inline-form edit-member" onSubmit={submit} aria-label={`Change ${nameOf(member)}`}>
      <ErrorMessage focus error={action.error} />
      <RoleField value={role} onChange={setRole} error={action.error} />
      <CompanyPicker value={companies} onChange={setCompanies} error={action.error} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="secondary" onClick={() => close(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
