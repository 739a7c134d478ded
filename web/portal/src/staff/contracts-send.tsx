// Staff send a contract from a template (/contracts): one of the workspace's templates (`GET /v1/contract-templates`,
// a page at a time), its variable fields filled in a form made from them (each beside the server's word about it),
// and the client who signs it, found by a search (forms-recipients.tsx) in one of its companies: `POST /v1/contracts`
// under one Idempotency-Key per request (a retry without an answer is answered once). A template's counts are left
// out: the API counts every company's contracts, which a member of staff limited to some may not see.
import { useRef, useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { ListState, Pager, usePaged } from '../../../kit/list.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { ok, v1 } from '../api.js';
import { Field, Status, Submit, useAction } from '../ui.js';
import { FormProblem } from '../work.js';
import { type Recipient, RecipientPicker, problemAt } from './forms-recipients.js';

type Template = Item<'/v1/contract-templates'>;
type TemplateField = Template['fields'][number];

const TYPE_WORDS: Record<TemplateField['type'], string> = { signature: 'Signature', initials: 'Initials', text: 'Text', date: 'Date' };
const valueName = (field: TemplateField) => `variableValues.${field.id}`;

export function SendContract({ onSent }: { onSent: () => void }) {
  const templates = usePaged((nextToken) => ok(v1.GET('/v1/contract-templates', { params: { query: { limit: 10, nextToken } } })), []);
  const [template, setTemplate] = useState<Template | null>(null);
  const [chosen, setChosen] = useState<Recipient[]>([]);
  const action = useAction();
  const key = useOnceKey();
  const form = useRef<HTMLFormElement>(null);
  const rows = templates.data?.data ?? [];
  const variables = template?.fields.filter((field) => field.inputType === 'variable') ?? [];
  const templateProblem = problemAt(action.error, 'contractTemplateId');
  const clientProblem = problemAt(action.error, 'clientId', 'recipientId', 'companyId');
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    // A field left empty is not sent: the server names a required one, and an optional one has no value.
    const variableValues = Object.fromEntries(
      variables.flatMap((field) => {
        const value = String(data.get(valueName(field)) ?? '').trim();
        return value ? [[field.id, value]] : [];
      }),
    );
    const recipient = chosen[0];
    const body = {
      contractTemplateId: template?.id ?? '',
      ...(recipient ? { clientId: recipient.clientId, companyId: recipient.companyId } : {}),
      variableValues,
    };
    void action.run(async () => {
      await once(key, JSON.stringify(body), (idempotencyKey) =>
        ok(v1.POST('/v1/contracts', { params: { header: { 'idempotency-key': idempotencyKey } }, body })),
      );
      form.current?.reset();
      setChosen([]);
      onSent();
      return `${template?.name ?? 'The contract'} was sent to ${recipient?.label ?? 'the client'}.`;
    });
  };
  return (
    <section class="panel send-panel" aria-labelledby="send-contract">
      <h2 id="send-contract">Send a contract</h2>
      <p>Choose a template, fill in its details, then the client who signs it.</p>
      <fieldset aria-describedby={templateProblem ? 'send-contract-problem' : undefined}>
        <legend>Template</legend>
        <ListState list={templates} what="templates" empty="No contract templates yet: they are made on the admin surface." />
        {rows.length > 0 ? (
          <ul class="choices send-choices">
            {rows.map((row) => (
              <li key={row.id}>
                <label class="choice">
                  <input
                    type="radio"
                    name="send-contract-template"
                    value={row.id}
                    checked={template?.id === row.id}
                    onChange={() => setTemplate(row)}
                  />
                  <span>{row.name}</span>
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <Pager list={templates} label="Templates" />
        {templateProblem ? (
          <small id="send-contract-problem" class="field-error">
            {templateProblem}
          </small>
        ) : null}
      </fieldset>
      <RecipientPicker
        id="send-contract-client"
        legend="Client who signs"
        many={false}
        chosen={chosen}
        onChange={setChosen}
        problem={clientProblem}
      />
      <form ref={form} onSubmit={submit} noValidate class="stack" aria-label="Send the contract" key={template?.id ?? ''}>
        <FormProblem error={action.error} names={variables.map(valueName)} form={form} />
        {template && variables.length > 0 ? (
          <fieldset>
            <legend>Details of “{template.name}”</legend>
            <div class="stack">
              {variables.map((field) => (
                <Field
                  key={field.id}
                  label={`${field.label || TYPE_WORDS[field.type]}${field.isOptional ? ' (optional)' : ''}`}
                  name={valueName(field)}
                  error={action.error}
                >
                  {(props) =>
                    field.type === 'date' ? (
                      <input {...props} type="date" required={!field.isOptional} />
                    ) : (
                      <input {...props} type="text" required={!field.isOptional} maxLength={1000} autocomplete="off" />
                    )
                  }
                </Field>
              ))}
            </div>
          </fieldset>
        ) : template ? (
          <p class="hint">This template has no details to fill in.</p>
        ) : null}
        <Submit label={action.busy ? 'Sending…' : 'Send the contract'} busy={action.busy} />
      </form>
      <Status>{action.done}</Status>
    </section>
  );
}
