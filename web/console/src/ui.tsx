import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ErrorMessage as KitErrorMessage, messageOf as kitMessageOf } from '../../kit/ui.js';

// The console's UI: the kit's (web/kit), errors shown with their status and code (an operator's view), and
// what only the console shows (dates, amounts, a secret shown once).

export { Field, PageHeading, Status, Submit, confirmed, latest, useAction, useLoad } from '../../kit/ui.js';
export {
  Badge,
  CreatePanel,
  DataTable,
  EditRow,
  FilterForm,
  ListState,
  Pager,
  RowButton,
  useListQuery,
  usePaged,
} from '../../kit/list.js';

/** What went wrong, with its status and code. */
export const messageOf = (error: unknown) => kitMessageOf(error, true);

/** What went wrong, as an alert, with its status and code. */
export const ErrorMessage = ({ error }: { error: unknown }) => <KitErrorMessage error={error} codes />;

// --- formatting ---------------------------------------------------------------------------------------

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

export const formatNumber = (n: number) => new Intl.NumberFormat().format(n);

// --- secrets --------------------------------------------------------------------------------------------------

/**
 * A secret the server answers once (an API key, a signing secret): shown with a copy button until
 * dismissed, then gone from the page and from memory.
 */
export function SecretOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLElement>(null);
  useEffect(() => box.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Copying is not allowed here: the key is selected, press Ctrl+C (⌘C).');
    }
  };
  const id = useId();
  return (
    <section class="secret" aria-labelledby={`${id}-title`} tabIndex={-1} ref={box}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p>Copy it now: it is shown only once and cannot be retrieved later.</p>
      <div class="secret-row">
        <label class="visually-hidden" for={id}>
          {title}
        </label>
        <input id={id} ref={field} class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" class="hint">
        {copied ?? ''}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}
