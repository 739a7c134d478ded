import { useEffect, useRef, useState } from 'preact/hooks';
import { type SignInSession, api } from '../api.js';
import { Link } from '../router.js';
import { CopyButton, CopyField, ErrorMessage, PageHeading, continueSignIn, text, useAction, Submit, AppCodeField } from '../ui.js';

/** The secret as it is typed into an app: in groups of four. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/**
 * Turning on two-step sign-in: a new secret for an authenticator app (typed in, or its otpauth URI pasted), a code
 * from the app to confirm it, then the ten recovery codes, shown this once.
 */
export function EnrolMfaPage() {
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const [confirmed, setConfirmed] = useState<{ recoveryCodes: string[]; session: SignInSession } | null>(null);
  const start = useAction();
  const confirm = useAction();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void start.run(async () => setEnrolment(await api.beginTotp()));
  }, [start.run]);

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void confirm.run(async () => setConfirmed(await api.confirmTotp(text(form, 'code').replace(/\s+/g, ''))));
  };

  if (confirmed) return <RecoveryCodes codes={confirmed.recoveryCodes} onDone={() => continueSignIn(confirmed.session)} />;
  return (
    <>
      <PageHeading title="Turn on two-step sign-in" />
      <ErrorMessage focus error={start.error}>
        <p>
          <Link href="/">Back to your account</Link>
        </p>
      </ErrorMessage>
      {start.busy && !enrolment ? <p aria-live="polite">Preparing a new key…</p> : null}
      {enrolment ? (
        <>
          <p>Each time you sign in, you will also enter a code from an authenticator app on your phone.</p>
          <ol class="steps">
            <li>
              <p>In your authenticator app, add an account with this key (or paste the setup link, if the app takes one):</p>
              <CopyField label="Key" value={grouped(enrolment.secret)} copyValue={enrolment.secret} />
              <CopyField label="Setup link" value={enrolment.otpauthUri} hint="An otpauth:// link with the same key." />
            </li>
            <li>
              <p>Enter the code the app now shows for it.</p>
              <ErrorMessage focus error={confirm.error} />
              <form class="stack" onSubmit={submit}>
                <AppCodeField hint="6 digits." error={confirm.error} />
                <Submit label="Turn on" busy={confirm.busy} />
              </form>
            </li>
          </ol>
        </>
      ) : null}
    </>
  );
}

/** The recovery codes, this once (the server keeps only their hashes). */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const list = useRef<HTMLUListElement>(null);
  const select = () => {
    if (list.current) window.getSelection()?.selectAllChildren(list.current);
  };
  return (
    <>
      <PageHeading title="Save your recovery codes" />
      <p>
        Two-step sign-in is on. If you lose your phone, each of these codes signs you in once instead of a code from the app. Keep them
        somewhere safe: they are shown only now.
      </p>
      <ul class="recovery-codes mono" aria-label="Recovery codes" ref={list}>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div class="actions">
        <CopyButton text={codes.join('\n')} what="Recovery codes" select={select} />
        <button type="button" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </>
  );
}
