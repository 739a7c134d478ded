// Staff send a form (/forms): one of the workspace's forms (`GET /v1/forms`, a page at a time) asked of clients
// found by a search (forms-recipients.tsx), each in one of its companies: `POST /v1/form-responses` with
// clientCompanyIds, under one Idempotency-Key per request (a retry without an answer is answered once). A form's
// counts are left out: the API counts every company's responses, which a member of staff limited to some may not see.
import { useState } from 'preact/hooks';
import { ListState, Pager, usePaged } from '../../../kit/list.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { ok, v1 } from '../api.js';
import { ErrorMessage, Status, Submit, useAction } from '../ui.js';
import { type Recipient, RecipientPicker, problemAt } from './forms-recipients.js';

export function SendForm({ onSent }: { onSent: () => void }) {
  const forms = usePaged((nextToken) => ok(v1.GET('/v1/forms', { params: { query: { limit: 10, nextToken } } })), []);
  const [formId, setFormId] = useState('');
  const [chosen, setChosen] = useState<Recipient[]>([]);
  const action = useAction();
  const key = useOnceKey();
  const rows = forms.data?.data ?? [];
  const formProblem = problemAt(action.error, 'formId');
  const clientProblem = problemAt(action.error, 'clientCompanyIds', 'clientIds');
  const submit = (event: Event) => {
    event.preventDefault();
    const body = { formId, clientCompanyIds: chosen.map(({ clientId, companyId }) => ({ clientId, companyId })) };
    const name = rows.find((form) => form.id === formId)?.name ?? 'The form';
    void action.run(async () => {
      await once(key, JSON.stringify(body), (idempotencyKey) =>
        ok(v1.POST('/v1/form-responses', { params: { header: { 'idempotency-key': idempotencyKey } }, body })),
      );
      setChosen([]);
      onSent();
      return `${name} was sent to ${chosen.length === 1 ? '1 client' : `${chosen.length} clients`}.`;
    });
  };
  return (
    <section class="panel send-panel" aria-labelledby="send-form">
      <h2 id="send-form">Send a form</h2>
      <p>Choose a form, then the clients to ask: each answers it in their portal.</p>
      <fieldset aria-describedby={formProblem ? 'send-form-problem' : undefined}>
        <legend>Form</legend>
        <ListState list={forms} what="forms" empty="No forms yet: forms are made on the admin surface." />
        {rows.length > 0 ? (
          <ul class="choices send-choices">
            {rows.map((form) => (
              <li key={form.id}>
                <label class="choice">
                  <input
                    type="radio"
                    name="send-form-id"
                    value={form.id}
                    checked={formId === form.id}
                    onChange={() => setFormId(form.id)}
                  />
                  <span>{form.name}</span>
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <Pager list={forms} label="Forms" />
        {formProblem ? (
          <small id="send-form-problem" class="field-error">
            {formProblem}
          </small>
        ) : null}
      </fieldset>
      <RecipientPicker id="send-form-clients" legend="Clients to ask" many chosen={chosen} onChange={setChosen} problem={clientProblem} />
      <form onSubmit={submit} aria-label="Send the form">
        <ErrorMessage error={action.error} focus />
        <Submit label={action.busy ? 'Sending…' : 'Send the form'} busy={action.busy} />
      </form>
      <Status>{action.done}</Status>
    </section>
  );
}
