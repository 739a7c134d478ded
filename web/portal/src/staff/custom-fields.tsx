// A client's or a company's custom fields for staff, edited in place: the workspace's definitions for the entity
// (`GET /v1/custom-fields?entityType=`), one control per field by its type (text, number, e-mail, URL, phone number,
// options ticked, an address of parts), saved in one `PATCH` of `customFields` by the page (`save`). The browser does
// not check the values: the server does, and its word about a field shows beside it (`customFields.<key>`).
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { ErrorMessage, Field, LoadFailed, Loading, Status, Submit, useAction } from '../ui.js';

export type CustomField = Item<'/v1/custom-fields'>;
type Entity = CustomField['entityType'];
type Values = Record<string, unknown>;

/** The parts of an address field, in the order a person writes them (fullAddress, if any, is kept as it is). */
const ADDRESS_PARTS = [
  ['addressLine1', 'Address line 1'],
  ['addressLine2', 'Address line 2'],
  ['city', 'City'],
  ['region', 'Region'],
  ['postalCode', 'Postal code'],
  ['country', 'Country'],
] as const;

/** The definitions read a page at a time: a workspace has a handful; 10 pages of 100 bound the reads. */
const MAX_PAGES = 10;

async function definitionsOf(entityType: Entity): Promise<CustomField[]> {
  const fields: CustomField[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await ok(v1.GET('/v1/custom-fields', { params: { query: { entityType, nextToken } } }));
    fields.push(...(answer.data ?? []));
    nextToken = answer.nextToken || undefined;
    if (!nextToken) break;
  }
  // The API lists the newest first; a form reads best in the order the fields were made.
  return fields.reverse();
}

const INPUT_TYPES: Partial<
  Record<CustomField['type'], { type: 'text' | 'email' | 'url' | 'tel'; inputMode?: 'decimal'; autocomplete?: string }>
> = {
  text: { type: 'text' },
  number: { type: 'text', inputMode: 'decimal' },
  email: { type: 'email', autocomplete: 'off' },
  url: { type: 'url' },
  phoneNumber: { type: 'tel', autocomplete: 'off' },
};

/** Whether the server refused some custom field's value (its word is then shown beside that field). */
const fieldProblems = (error: unknown) =>
  error instanceof ApiError && Object.keys(error.fields).some((name) => name.startsWith('customFields.'));

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** Each field's value from the form, as `customFields` takes it ("" or [] clears one; an empty address is null). */
function valuesOf(form: HTMLFormElement, fields: CustomField[], current: Values): Values {
  const data = new FormData(form);
  const values: Values = {};
  for (const field of fields) {
    const name = `customFields.${field.key}`;
    if (field.type === 'multiSelect') values[field.key] = data.getAll(name).map(String);
    else if (field.type === 'address') {
      const before = (current[field.key] ?? {}) as Record<string, unknown>;
      const address: Record<string, string> = typeof before.fullAddress === 'string' ? { fullAddress: before.fullAddress } : {};
      for (const [part] of ADDRESS_PARTS) {
        const text = String(data.get(`${name}.${part}`) ?? '').trim();
        if (text) address[part] = text;
      }
      values[field.key] = Object.keys(address).length > 0 ? address : null;
    } else values[field.key] = String(data.get(name) ?? '').trim();
  }
  return values;
}

/**
 * The custom fields panel: `values` the entity's `customFields`, `version` its updatedAt (the form is reset to
 * the saved values when it changes), `save` the PATCH of the values given, settling once the entity is read again:
 * "saved" shows on the rebuilt form, not before it, when an edit made in between would be lost.
 */
export function CustomFieldsPanel({
  entityType,
  values,
  version,
  save,
}: {
  entityType: Entity;
  values: Values;
  version: string;
  save: (customFields: Values) => Promise<void>;
}) {
  const headingId = useId();
  const fields = useLoad(() => definitionsOf(entityType), [entityType]);
  const edit = useAction();
  const list = fields.data ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void edit.run(async () => {
      await save(valuesOf(form, list, values));
      return 'The custom fields were saved.';
    });
  };
  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Custom fields</h2>
      {fields.loading && !fields.data ? <Loading>Loading the custom fields…</Loading> : null}
      {fields.error ? <LoadFailed error={fields.error} retry={fields.reload} codes /> : null}
      {fields.data && list.length === 0 ? (
        <p class="empty">The workspace has no custom fields for {entityType === 'client' ? 'clients' : 'companies'}.</p>
      ) : null}
      {list.length > 0 ? (
        <>
          {/* A value refused: the server's word is beside its field; the alert says where to look. */}
          <ErrorMessage
            error={fieldProblems(edit.error) ? 'Nothing was saved: see what is wrong beside each field marked.' : edit.error}
            focus
            codes
          />
          <Status>{edit.done}</Status>
          {/* noValidate: the server checks each value, and says what is wrong beside the field. */}
          <form class="custom-fields" onSubmit={submit} noValidate key={version}>
            {list.map((field) => (
              <CustomFieldControl key={field.id} field={field} value={values[field.key]} error={edit.error} />
            ))}
            <Submit label={edit.busy ? 'Saving…' : 'Save the custom fields'} busy={edit.busy} />
          </form>
        </>
      ) : null}
    </section>
  );
}

function CustomFieldControl({ field, value, error }: { field: CustomField; value: unknown; error: unknown }) {
  const name = `customFields.${field.key}`;
  if (field.type === 'multiSelect') {
    const chosen = new Set(Array.isArray(value) ? value.map(String) : []);
    return (
      <Group legend={field.name} name={name} error={error} hint="Tick any number">
        <ul class="choices">
          {(field.options ?? []).map((option) => (
            <li key={option.id}>
              <label class="choice">
                <input type="checkbox" name={name} value={option.id} defaultChecked={chosen.has(option.id) || chosen.has(option.key)} />{' '}
                {option.label}
              </label>
            </li>
          ))}
        </ul>
      </Group>
    );
  }
  if (field.type === 'address') {
    const address = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    return (
      <Group legend={field.name} name={name} error={error}>
        <div class="address-parts">
          {ADDRESS_PARTS.map(([part, label]) => (
            <Field key={part} label={label}>
              {(props) => <input {...props} name={`${name}.${part}`} defaultValue={str(address[part])} autocomplete="off" />}
            </Field>
          ))}
        </div>
      </Group>
    );
  }
  const input = INPUT_TYPES[field.type] ?? { type: 'text' };
  return (
    <Field label={field.name} name={name} error={error}>
      {(props) => (
        <input
          {...props}
          // One of text, email, url and tel: Preact's types tell them apart, the attributes given here suit each.
          {...({ type: input.type } as { type: 'text' })}
          inputMode={input.inputMode}
          autocomplete={input.autocomplete}
          defaultValue={str(value)}
          maxLength={10_000}
        />
      )}
    </Field>
  );
}

/** A fieldset of controls (options, an address) with the server's word about the whole field beside its legend. */
function Group({
  legend,
  name,
  hint,
  error,
  children,
}: {
  legend: string;
  name: string;
  hint?: string;
  error: unknown;
  children: ComponentChildren;
}) {
  const id = useId();
  const problem = error instanceof ApiError ? error.fields[name] : undefined;
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <fieldset class="field" aria-describedby={described || undefined}>
      <legend>{legend}</legend>
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
      {children}
      {problem ? (
        <small id={`${id}-error`} class="field-error">
          {`${problem.charAt(0).toUpperCase()}${problem.slice(1)}${/[.!?]$/.test(problem) ? '' : '.'}`}
        </small>
      ) : null}
    </fieldset>
  );
}
