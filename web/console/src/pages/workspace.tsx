import { admin, adminApi, ok, path, v1Api } from '../api.js';
import { CreatePanel, ErrorMessage, Field, PageHeading, Status, latest, useAction, useLoad } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The staff's pages in the workspace's portal, as its navigation names them (web/portal/src/sections.ts). */
const STAFF_PAGES: [string, string, string][] = [
  ['/clients', 'Clients', 'list, search, add and invite the clients they may see; their custom fields, notes and things in tabs'],
  ['/companies', 'Companies', 'list, search, add and rename companies; their clients, custom fields and notes'],
  ['/messages', 'Messages', 'the inbox of every conversation they may see, live; start one with a client, company or group'],
  ['/billing', 'Billing', 'invoices made, sent, marked paid, voided and refunded; subscriptions; the sandbox clock'],
  ['/tasks', 'Tasks', 'the task board and task templates'],
  ['/forms', 'Forms', 'and Contracts: sent to clients, their answers and signatures'],
  ['/team', 'Team', 'admins only: invite internal users, change their role and companies, remove them'],
];

/**
 * A workspace's first page: what the console does for it (the sections beside), and where its staff work: the
 * workspace's portal, signed in as staff. The operator invites an admin there (a new workspace's first), who runs
 * the team from the portal's Team page; and whether staff must sign in with a TOTP code (no portal page sets it).
 */
export function WorkspacePage({ workspaceId }: { workspaceId: string }) {
  const portal = `/portal/${encodeURIComponent(workspaceId)}`;
  const invite = useAction();
  const mfa = useAction();
  // The admin surface has no GET of one workspace: its setting comes from the list, as the navigation reads it.
  const workspaces = useLoad(() => ok(adminApi.GET('/admin/workspaces', { params: { query: { limit: 1000 } } })), []);
  const workspace = workspaces.data?.data.find((w) => w.id === workspaceId);
  const saveMfa = (event: Event) => {
    event.preventDefault();
    const staffMfaRequired = (event.currentTarget as HTMLFormElement).elements.namedItem('staffMfaRequired') as HTMLInputElement;
    void mfa.run(async () => {
      await admin.patch(path`/workspaces/${workspaceId}`, { staffMfaRequired: staffMfaRequired.checked });
      workspaces.reload();
      return staffMfaRequired.checked ? 'Staff now sign in with a TOTP code.' : 'A TOTP code is now optional for staff.';
    });
  };
  return (
    <>
      <PageHeading title="Overview" context={useWorkspaceName()} />
      <p>
        The console does the operator’s work on this workspace: its keys, installs, webhooks, e-mail outbox, branding, QA principals, import
        and export, and the audit log.
      </p>
      <section class="panel" aria-labelledby="staff-work">
        <h2 id="staff-work">Where staff work</h2>
        <p>
          The workspace’s staff (its internal users) work in its portal, signed in with “I am staff” at{' '}
          <a href={`${portal}/sign-in`} class="mono">
            {portal}/sign-in
          </a>
          . Their pages there:
        </p>
        <ul>
          {STAFF_PAGES.map(([path, label, what]) => (
            <li key={path}>
              <a href={portal + path}>{label}</a>: {what}
            </li>
          ))}
        </ul>
      </section>
      <Status>{latest(invite, mfa)}</Status>
      <section class="panel" aria-labelledby="staff-sign-in">
        <h2 id="staff-sign-in">Staff sign-in</h2>
        <ErrorMessage error={workspaces.error ?? mfa.error} />
        {workspace ? (
          <form onSubmit={saveMfa} key={String(workspace.staffMfaRequired)}>
            <label class="choice">
              <input type="checkbox" name="staffMfaRequired" defaultChecked={workspace.staffMfaRequired} /> Require a TOTP code of every
              member of staff (those without one set it up at their next sign-in)
            </label>
            <div class="actions staff-mfa">
              <button type="submit" disabled={mfa.busy}>
                {mfa.busy ? 'Saving…' : 'Save staff sign-in'}
              </button>
            </div>
          </form>
        ) : null}
      </section>
      <CreatePanel
        id="invite-admin"
        title="Invite an admin"
        submitLabel="Invite admin"
        action={invite}
        create={async (data) => {
          const body = {
            givenName: String(data.get('givenName') ?? '').trim(),
            familyName: String(data.get('familyName') ?? '').trim(),
            email: String(data.get('email') ?? '').trim(),
            role: 'admin' as const,
          };
          const made = await ok(v1Api(workspaceId).POST('/v1/internal-users', { params: { query: { sendInvite: true } }, body }));
          return `${made.givenName} ${made.familyName} was invited as an admin: an e-mail to ${made.email} lets them choose a password.`;
        }}
      >
        <p class="hint wide">
          A new workspace’s first admin, who then runs the team from the portal’s Team page. Without SMTP_URL the invite waits in the E-mail
          outbox.
        </p>
        <Field label="Given name">{(props) => <input {...props} name="givenName" required maxLength={100} autoComplete="off" />}</Field>
        <Field label="Family name">{(props) => <input {...props} name="familyName" required maxLength={100} autoComplete="off" />}</Field>
        <Field label="Email">{(props) => <input {...props} name="email" type="email" required autoComplete="off" />}</Field>
      </CreatePanel>
    </>
  );
}
