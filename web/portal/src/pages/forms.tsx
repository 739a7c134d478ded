// The Forms section (/forms, /forms/<responseId>): the forms asked of the person (a client: its form responses, to
// fill in and sent), one filled in and sent with the server's word beside each field it refused, a sent one read back.
import { useRef, useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { type ControlProps, useLoad } from '../../../kit/ui.js';
import { DataTable, ListState, Pager, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { type Person, ok, v1 } from '../api.js';
import { partyName, partyWanted, useNames } from '../names.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import type { Waiting } from '../sections.js';
import { Done, Field, LoadFailed, Loading, PageHeading, Submit, useAction } from '../ui.js';
import { FormProblem, counted, everyItem, formatDay, formatWhen } from '../work.js';
import { SendForm } from '../staff/forms-send.js';
import { NotFoundPage } from './not-found.js';

type FormResponse = Item<'/v1/form-responses'>;
type ResponseStatus = FormResponse['status'];
type FormField = FormResponse['formFields'][string];

export function FormsPage({ path }: { path: string }) {
  const one = match('/forms/:id', path);
  if (one) return <ResponsePage id={one.id} />;
  if (path !== '/forms') return <NotFoundPage />;
  return <ResponseLists />;
}

/** Whether the person answers this response: the client it was asked of, while it waits (no one else may). */
const answers = (person: Person, response: FormResponse) =>
  response.status === 'pending' && person.type === 'client' && response.clientId === person.id;

function ResponseLists() {
  const { person, workspace, staff } = useSignedIn();
  const client = person.type === 'client';
  // Staff send forms: the lists read again after each.
  const [round, setRound] = useState(0);
  return (
    <>
      <PageHeading title="Forms" context={workspace.name} />
      <p>
        {client ? 'The forms we have asked you to fill in, and those you have sent.' : 'The forms asked of clients, and their answers.'}
      </p>
      <ResponseList
        status="pending"
        title={client ? 'To fill in' : 'Waiting for answers'}
        empty={client ? 'Nothing to fill in.' : 'No form waits for an answer.'}
        round={round}
      />
      <ResponseList
        status="completed"
        title={client ? 'Sent' : 'Answered'}
        empty={client ? 'You have not sent a form yet.' : 'No form answered yet.'}
        round={round}
      />
      {staff ? <SendForm onSent={() => setRound((n) => n + 1)} /> : null}
    </>
  );
}

function ResponseList({ status, title, empty, round }: { status: ResponseStatus; title: string; empty: string; round: number }) {
  const { person } = useSignedIn();
  const list = usePaged(
    (nextToken) => ok(v1.GET('/v1/form-responses', { params: { query: { status, limit: 25, nextToken } } })),
    [status, round],
  );
  const rows = list.data?.data ?? [];
  // Staff see whom each was asked of; a client, only its own.
  const staff = person.type !== 'client';
  const name = useNames(person, staff ? rows.flatMap(partyWanted) : []);
  const id = `forms-${status}`;
  const when = status === 'pending' ? 'Asked on' : 'Sent on';
  return (
    <section aria-labelledby={id} class="panel">
      <h2 id={id}>{title}</h2>
      <ListState list={list} what="forms" empty={empty} />
      {rows.length > 0 ? (
        <DataTable caption={`${title}, newest first`} columns={staff ? ['Form', 'Client', when] : ['Form', when]}>
          {rows.map((response) => (
            <tr key={response.id}>
              <td data-label="Form" class="break">
                <Link href={`/forms/${encodeURIComponent(response.id)}`}>{response.formName}</Link>
              </td>
              {staff ? (
                <td data-label="Client" class="break">
                  {partyName(response, name)}
                </td>
              ) : null}
              <td data-label={when}>{formatWhen(status === 'pending' ? response.createdAt : response.submissionDate)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label={title} />
    </section>
  );
}

function ResponsePage({ id }: { id: string }) {
  const { person, workspace } = useSignedIn();
  const loaded = useLoad(() => ok(v1.GET('/v1/form-responses/{id}', { params: { path: { id } } })), [id]);
  const [sent, setSent] = useState<FormResponse | null>(null);
  const response = sent ?? loaded.data;
  if (!response) {
    return (
      <>
        <PageHeading title={loaded.error && !loaded.loading ? 'Form not available' : 'Form'} context={workspace.name} />
        {loaded.error && !loaded.loading ? <LoadFailed error={loaded.error} retry={loaded.reload} /> : <Loading>Loading the form…</Loading>}
        <p>
          <Link href="/forms">All forms</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading title={response.formName} context={workspace.name} />
      <p>
        <Link href="/forms">All forms</Link>
      </p>
      {person.type === 'client' ? null : <AskedOf response={response} />}
      {response.formDescription ? <p class="prose">{response.formDescription}</p> : null}
      {sent ? <Done>Thank you: your answers are sent.</Done> : null}
      {answers(person, response) ? <AnswerForm response={response} onSent={setSent} /> : <SentAnswers response={response} />}
    </>
  );
}

/** For staff: whom the form was asked of, and its state (they answer none: the page is read-only to them). */
function AskedOf({ response }: { response: FormResponse }) {
  const { person } = useSignedIn();
  const name = useNames(person, partyWanted(response));
  return (
    <dl class="facts">
      <dt>Asked of</dt>
      <dd>{partyName(response, name)}</dd>
      <dt>Asked on</dt>
      <dd>{formatWhen(response.createdAt)}</dd>
      <dt>Status</dt>
      <dd>
        <span class={`badge badge-${response.status}`}>{response.status === 'pending' ? 'Waiting for answers' : 'Answered'}</span>
      </dd>
    </dl>
  );
}

/** What each kind of field takes, said beside it (the server holds the answers to the same). */
const TYPE_HINTS: Record<FormField['type'], string> = {
  shortAnswer: '',
  longAnswer: '',
  email: 'An e-mail address, such as name@example.com.',
  url: 'A web address starting with https:// or http://.',
  number: 'A number, such as 42 or 3.5.',
  date: '',
};

/** The control of a field's type; the form checks nothing itself (noValidate): the server's word shows beside it. */
function AnswerControl({ field, props }: { field: FormField; props: ControlProps }) {
  const required = field.isRequired;
  switch (field.type) {
    case 'longAnswer':
      return <textarea {...props} rows={5} required={required} />;
    case 'email':
      return <input {...props} type="email" required={required} spellcheck={false} />;
    case 'url':
      return <input {...props} type="url" required={required} spellcheck={false} />;
    case 'number':
      return <input {...props} type="text" inputMode="decimal" required={required} />;
    case 'date':
      return <input {...props} type="date" required={required} />;
    default:
      return <input {...props} type="text" required={required} />;
  }
}

function AnswerForm({ response, onSent }: { response: FormResponse; onSent: (response: FormResponse) => void }) {
  const action = useAction();
  const form = useRef<HTMLFormElement>(null);
  const name = (fieldId: string) => `answers.${fieldId}`;
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const given = Object.fromEntries(response.formFieldIds.map((fieldId) => [fieldId, String(data.get(name(fieldId)) ?? '')]));
    void action.run(async () =>
      onSent(await ok(v1.POST('/v1/form-responses/{id}/complete', { params: { path: { id: response.id } }, body: { answers: given } }))),
    );
  };
  return (
    <form ref={form} onSubmit={submit} noValidate class="stack" aria-label={response.formName}>
      <FormProblem error={action.error} names={response.formFieldIds.map(name)} form={form} />
      {response.formFieldIds.some((fieldId) => response.formFields[fieldId]?.isRequired) ? (
        <p class="hint">Questions marked “required” need an answer.</p>
      ) : null}
      {response.formFieldIds.map((fieldId) => {
        const field = response.formFields[fieldId];
        if (!field) return null;
        const hint = [field.description, TYPE_HINTS[field.type]].filter(Boolean).join(' ');
        return (
          <Field
            key={fieldId}
            label={field.isRequired ? `${field.title} (required)` : field.title}
            name={name(fieldId)}
            hint={hint || undefined}
            error={action.error}
          >
            {(props) => <AnswerControl field={field} props={props} />}
          </Field>
        );
      })}
      <Submit label="Send the answers" busy={action.busy} />
    </form>
  );
}

/** A response read back: each question and its answer; one still waiting says for whom. */
function SentAnswers({ response }: { response: FormResponse }) {
  const { person } = useSignedIn();
  const fields = response.formFieldIds.flatMap((fieldId) => {
    const field = response.formFields[fieldId];
    return field ? [{ fieldId, field }] : [];
  });
  if (response.status === 'pending') {
    return <p>{person.type === 'client' ? 'This form was asked of someone else.' : 'Waiting for the client’s answers.'}</p>;
  }
  return (
    <section aria-labelledby="answers" class="panel">
      <h2 id="answers">Answers</h2>
      <p class="hint">Sent {formatWhen(response.submissionDate)}. Sent answers cannot be changed.</p>
      <dl class="facts answers">
        {fields.map(({ fieldId, field }) => [
          <dt key={`${fieldId}-q`}>{field.title}</dt>,
          <dd key={`${fieldId}-a`} class={field.answer ? 'prose' : 'muted'}>
            {field.answer ? (field.type === 'date' ? formatDay(field.answer) : field.answer) : 'No answer'}
          </dd>,
        ])}
      </dl>
    </section>
  );
}

/** The forms waiting for the client's answers (staff answer none). */
export async function formsWaiting({ person }: SignedIn): Promise<Waiting> {
  const pending =
    person.type === 'client'
      ? await everyItem((nextToken) =>
          ok(v1.GET('/v1/form-responses', { params: { query: { status: 'pending', limit: 1000, nextToken } } })),
        )
      : [];
  const count = pending.filter((response) => answers(person, response)).length;
  return { section: '/forms', count, says: counted(count, 'form to fill in', 'forms to fill in') };
}
