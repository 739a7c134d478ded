// A client's page for staff (/clients/<id>): its details and companies, its invite (sent, or sent again), and its
// names edited in place. What the signed-in internal user may not see (another company's client) is not found.
import type { Answer } from '../../../kit/api.js';
import { useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { useNames } from '../names.js';
import { Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, Submit, useAction } from '../ui.js';
import { ClientTabs } from './client-tabs.js';
import { STATUS_WORDS } from './clients.js';
import { CustomFieldsPanel } from './custom-fields.js';
import { NotesPanel } from './notes.js';

type Client = Answer<'/v1/clients/{id}'>;

export function ClientPage({ id }: { id: string }) {
  const client = useLoad(() => ok(v1.GET('/v1/clients/{id}', { params: { path: { id } } })), [id]);
  if (client.error instanceof ApiError && client.error.status === 404) {
    return (
      <>
        <PageHeading title="Client not found" />
        <p>
          No client you may see has this address. <Link href="/clients">Back to the clients</Link>.
        </p>
      </>
    );
  }
  if (client.error) {
    return (
      <>
        <PageHeading title="Client" />
        <LoadFailed error={client.error} retry={client.reload} codes />
      </>
    );
  }
  if (!client.data) return <Loading>Loading the client…</Loading>;
  return <ClientDetails client={client.data} reloaded={client.reloaded} />;
}

function ClientDetails({ client, reloaded }: { client: Client; reloaded: () => Promise<void> }) {
  const { person } = useSignedIn();
  const name = useNames(
    person,
    client.companyIds.map((id) => ['company', id] as ['company', string]),
  );
  const invite = useAction();
  const edit = useAction();
  const fullName = `${client.givenName} ${client.familyName}`.trim() || client.email;
  const sendInvite = () =>
    invite.run(async () => {
      await ok(v1.POST('/v1/clients/{id}/invite', { params: { path: { id: client.id } } }));
      await reloaded();
      return `The invite was e-mailed to ${client.email}.`;
    });
  const save = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    void edit.run(async () => {
      await ok(
        v1.PATCH('/v1/clients/{id}', {
          params: { path: { id: client.id } },
          body: { givenName: String(data.get('givenName') ?? '').trim(), familyName: String(data.get('familyName') ?? '').trim() },
        }),
      );
      await reloaded();
      return 'The names were saved.';
    });
  };
  return (
    <>
      <PageHeading title={fullName} context="Clients" />
      <p>
        <Link href="/clients">All clients</Link>
      </p>
      <dl class="facts">
        <dt>E-mail</dt>
        <dd>{client.email}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge badge-${client.status}`}>{STATUS_WORDS[client.status]}</span>
        </dd>
        <dt>Companies</dt>
        <dd>
          <ul class="client-companies">
            {client.companyIds.map((id) => (
              <li key={id}>{name('company', id) ?? '…'}</li>
            ))}
          </ul>
        </dd>
      </dl>
      <Status>{invite.done ?? edit.done}</Status>
      {client.status === 'active' ? null : (
        <section class="panel" aria-labelledby="client-invite">
          <h2 id="client-invite">Invite</h2>
          <ErrorMessage error={invite.error} focus codes />
          <p>{client.status === 'invited' ? 'An invite was sent; a new one replaces it.' : 'The client has not been invited yet.'}</p>
          <button type="button" disabled={invite.busy} onClick={() => void sendInvite()}>
            {invite.busy ? 'Sending…' : client.status === 'invited' ? 'Re-send invite' : 'Invite'}
          </button>
        </section>
      )}
      <section class="panel" aria-labelledby="client-names">
        <h2 id="client-names">Names</h2>
        <ErrorMessage error={edit.error} focus codes />
        <form class="inline-form" onSubmit={save} key={client.updatedAt}>
          <Field label="Given name" name="givenName" error={edit.error}>
            {(props) => <input {...props} defaultValue={client.givenName} autocomplete="off" />}
          </Field>
          <Field label="Family name" name="familyName" error={edit.error}>
            {(props) => <input {...props} defaultValue={client.familyName} autocomplete="off" />}
          </Field>
          <Submit label={edit.busy ? 'Saving…' : 'Save the names'} busy={edit.busy} />
        </form>
      </section>
      <CustomFieldsPanel
        entityType="client"
        values={client.customFields}
        version={client.updatedAt}
        save={async (customFields) => {
          await ok(v1.PATCH('/v1/clients/{id}', { params: { path: { id: client.id } }, body: { customFields } }));
          await reloaded();
        }}
      />
      <NotesPanel entityType="client" entityId={client.id} />
      <ClientTabs client={client} />
    </>
  );
}
