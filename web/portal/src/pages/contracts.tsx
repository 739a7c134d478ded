// The Contracts section (/contracts, /contracts/<id>): the contracts sent to the person (a client: to sign, and
// signed), one read with its details and its document, signed by typing (the API records a signature as the signer's
// typed name or initials: there is nothing to draw), and the signed PDF downloaded from /v1.
import { useRef, useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { type ControlProps, useLoad } from '../../../kit/ui.js';
import { DataTable, ListState, Pager, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { type Person, ok, v1 } from '../api.js';
import { partyName, partyWanted, useNames } from '../names.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { BASE, Link } from '../router.js';
import type { Waiting } from '../sections.js';
import { Done, Field, LoadFailed, Loading, PageHeading, Submit, useAction } from '../ui.js';
import { FormProblem, counted, everyItem, formatDay, formatWhen } from '../work.js';
import { SendContract } from '../staff/contracts-send.js';
import { NotFoundPage } from './not-found.js';

type Contract = Item<'/v1/contracts'>;
type ContractStatus = Contract['status'];
type ContractField = Contract['fields'][number];

export function ContractsPage({ path }: { path: string }) {
  const one = match('/contracts/:id', path);
  if (one) return <ContractPage id={one.id} />;
  if (path !== '/contracts') return <NotFoundPage />;
  return <ContractLists />;
}

/** Whether the person signs this contract: the client it was sent to, while it waits (no one else may). */
const signs = (person: Person, contract: Contract) =>
  contract.status === 'pending' && person.type === 'client' && contract.clientId === person.id;

const STATUS_WORDS: Record<ContractStatus, string> = { pending: 'To sign', signed: 'Signed' };

/** The signed contract's document, downloaded through the API as the signed-in person. */
const pdfUrl = (contract: Contract) => `${BASE}/v1/contracts/${encodeURIComponent(contract.id)}/pdf`;

function ContractLists() {
  const { person, workspace, staff } = useSignedIn();
  const client = person.type === 'client';
  // Staff send contracts: the lists read again after each.
  const [round, setRound] = useState(0);
  return (
    <>
      <PageHeading title="Contracts" context={workspace.name} />
      <p>{client ? 'The contracts we have sent you: those to sign, and those you have signed.' : 'The contracts sent to clients.'}</p>
      <ContractList
        status="pending"
        title={client ? 'To sign' : 'Waiting for a signature'}
        empty="No contract waits for a signature."
        round={round}
      />
      <ContractList status="signed" title="Signed" empty="No contract signed yet." round={round} />
      {staff ? <SendContract onSent={() => setRound((n) => n + 1)} /> : null}
    </>
  );
}

function ContractList({ status, title, empty, round }: { status: ContractStatus; title: string; empty: string; round: number }) {
  const { person } = useSignedIn();
  const list = usePaged(
    (nextToken) => ok(v1.GET('/v1/contracts', { params: { query: { status, limit: 25, nextToken } } })),
    [status, round],
  );
  const rows = list.data?.data ?? [];
  // Staff see whom each was sent to; a client, only its own.
  const staff = person.type !== 'client';
  const name = useNames(person, staff ? rows.flatMap(partyWanted) : []);
  const id = `contracts-${status}`;
  const when = status === 'pending' ? 'Sent on' : 'Signed on';
  // Staff read who signed: the client it was sent to (only that client signs it).
  const whom = status === 'pending' ? 'Client' : 'Signed by';
  return (
    <section aria-labelledby={id} class="panel">
      <h2 id={id}>{title}</h2>
      <ListState list={list} what="contracts" empty={empty} />
      {rows.length > 0 ? (
        <DataTable caption={`${title}, newest first`} columns={staff ? ['Contract', whom, when] : ['Contract', when]}>
          {rows.map((contract) => (
            <tr key={contract.id}>
              <td data-label="Contract" class="break">
                <Link href={`/contracts/${encodeURIComponent(contract.id)}`}>{contract.name}</Link>
              </td>
              {staff ? (
                <td data-label={whom} class="break">
                  {partyName(contract, name)}
                </td>
              ) : null}
              <td data-label={when}>{formatWhen(status === 'pending' ? contract.shareDate : contract.submissionDate)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label={title} />
    </section>
  );
}

function ContractPage({ id }: { id: string }) {
  const { person, workspace } = useSignedIn();
  const loaded = useLoad(() => ok(v1.GET('/v1/contracts/{id}', { params: { path: { id } } })), [id]);
  const [signed, setSigned] = useState<Contract | null>(null);
  const contract = signed ?? loaded.data;
  if (!contract) {
    return (
      <>
        <PageHeading title={loaded.error && !loaded.loading ? 'Contract not available' : 'Contract'} context={workspace.name} />
        {loaded.error && !loaded.loading ? (
          <LoadFailed error={loaded.error} retry={loaded.reload} />
        ) : (
          <Loading>Loading the contract…</Loading>
        )}
        <p>
          <Link href="/contracts">All contracts</Link>
        </p>
      </>
    );
  }
  const toSign = signs(person, contract);
  return <ContractDetails contract={contract} toSign={toSign} signed={signed !== null} onSigned={setSigned} />;
}

function ContractDetails({
  contract,
  toSign,
  signed,
  onSigned,
}: {
  contract: Contract;
  toSign: boolean;
  signed: boolean;
  onSigned: (contract: Contract) => void;
}) {
  const { person, workspace } = useSignedIn();
  // Staff read whom it was sent to (a client knows it is its own).
  const name = useNames(person, person.type === 'client' ? [] : partyWanted(contract));
  return (
    <>
      <PageHeading title={contract.name} context={workspace.name} />
      <p>
        <Link href="/contracts">All contracts</Link>
      </p>
      <dl class="facts">
        {person.type === 'client' ? null : (
          <>
            <dt>Sent to</dt>
            <dd>{partyName(contract, name)}</dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          <span class={`badge badge-${contract.status}`}>{STATUS_WORDS[contract.status]}</span>
        </dd>
        <dt>Sent</dt>
        <dd>{formatWhen(contract.shareDate)}</dd>
        {contract.submissionDate ? (
          <>
            {person.type === 'client' ? null : (
              <>
                <dt>Signed by</dt>
                <dd>{partyName(contract, name)}</dd>
              </>
            )}
            <dt>Signed</dt>
            <dd>{formatWhen(contract.submissionDate)}</dd>
          </>
        ) : null}
      </dl>
      {contract.fileUrl ? <Document url={contract.fileUrl} /> : null}
      <Details contract={contract} />
      {signed ? <Done>Thank you: the contract is signed.</Done> : null}
      {contract.status === 'signed' ? (
        <p>
          <a class="button" href={pdfUrl(contract)} download>
            Download the signed contract (PDF)
          </a>
        </p>
      ) : toSign ? (
        <SignForm contract={contract} onSigned={onSigned} />
      ) : (
        <p>Waiting for the client’s signature.</p>
      )}
    </>
  );
}

/** The document the contract is about: an address the workspace gave (it is not kept here), opened as a plain link. */
function Document({ url }: { url: string }) {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // shown as given
  }
  return (
    <p>
      <a href={url} rel="noopener noreferrer">
        Read the document
      </a>{' '}
      <span class="hint">(on {host})</span>
    </p>
  );
}

const TYPE_WORDS: Record<ContractField['type'], string> = { signature: 'Signature', initials: 'Initials', text: 'Text', date: 'Date' };
const fieldLabel = (field: ContractField) => field.label || TYPE_WORDS[field.type];

/** The contract's fields that have a value (the workspace's, and the signer's once signed). */
function Details({ contract }: { contract: Contract }) {
  const filled = contract.fields.filter((field) => field.value !== undefined && field.value !== '');
  if (filled.length === 0) return null;
  return (
    <section aria-labelledby="details" class="panel">
      <h2 id="details">Details</h2>
      <dl class="facts">
        {filled.map((field) => [
          <dt key={`${field.id}-l`}>{fieldLabel(field)}</dt>,
          <dd key={`${field.id}-v`} class={field.type === 'signature' ? 'prose signature' : 'prose'}>
            {field.type === 'date' && field.value ? formatDay(field.value) : field.value}
          </dd>,
        ])}
      </dl>
    </section>
  );
}

/** The signer's fields: a typed name is the signature, typed initials the initials (a keyboard is all it takes). */
function SignField({ field, props }: { field: ContractField; props: ControlProps }) {
  const required = !field.isOptional;
  if (field.type === 'date') return <input {...props} type="date" required={required} />;
  if (field.type === 'signature')
    return <input {...props} class="signature" type="text" autocomplete="name" required={required} spellcheck={false} />;
  if (field.type === 'initials') return <input {...props} type="text" maxLength={20} required={required} spellcheck={false} />;
  return <input {...props} type="text" required={required} />;
}

function signHint(field: ContractField, person: Person, pages: boolean): string | undefined {
  const name = `${person.givenName} ${person.familyName}`.trim();
  const words: string[] = [];
  if (field.type === 'signature')
    words.push(name ? `Type your full name (${name}): it is your signature.` : 'Type your full name: it is your signature.');
  if (field.type === 'initials') words.push('Type your initials.');
  if (pages) words.push(`On page ${field.page} of the document.`);
  return words.length > 0 ? words.join(' ') : undefined;
}

function SignForm({ contract, onSigned }: { contract: Contract; onSigned: (contract: Contract) => void }) {
  const { person } = useSignedIn();
  const action = useAction();
  const form = useRef<HTMLFormElement>(null);
  const mine = contract.fields.filter((field) => field.inputType === 'client');
  const pages = contract.fields.some((field) => field.page > 1);
  const name = (fieldId: string) => `values.${fieldId}`;
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const values = Object.fromEntries(mine.map((field) => [field.id, String(data.get(name(field.id)) ?? '')]));
    void action.run(async () =>
      onSigned(await ok(v1.POST('/v1/contracts/{id}/sign', { params: { path: { id: contract.id } }, body: { values } }))),
    );
  };
  return (
    <section aria-labelledby="sign" class="panel">
      <h2 id="sign">Sign the contract</h2>
      <form ref={form} onSubmit={submit} noValidate class="stack" aria-labelledby="sign">
        <FormProblem error={action.error} names={mine.map((field) => name(field.id))} form={form} />
        <p>Fill in what is asked below. Typing your name and selecting “Sign the contract” signs it: it cannot be undone.</p>
        {mine.map((field) => (
          <Field
            key={field.id}
            label={field.isOptional ? `${fieldLabel(field)} (optional)` : fieldLabel(field)}
            name={name(field.id)}
            hint={signHint(field, person, pages)}
            error={action.error}
          >
            {(props) => <SignField field={field} props={props} />}
          </Field>
        ))}
        <Submit label="Sign the contract" busy={action.busy} />
      </form>
    </section>
  );
}

/** The contracts waiting for the client's signature (staff sign none). */
export async function contractsWaiting({ person }: SignedIn): Promise<Waiting> {
  const pending =
    person.type === 'client'
      ? await everyItem((nextToken) => ok(v1.GET('/v1/contracts', { params: { query: { status: 'pending', limit: 1000, nextToken } } })))
      : [];
  const count = pending.filter((contract) => signs(person, contract)).length;
  return { section: '/contracts', count, says: counted(count, 'contract to sign', 'contracts to sign') };
}
