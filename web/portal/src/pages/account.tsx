import { useEffect, useRef, useState } from 'preact/hooks';
import { useLoad } from '../../../kit/ui.js';
import { ApiError, type Profile, type SignInSession, api } from '../api.js';
import { BASE, navigate } from '../router.js';
import {
  ErrorMessage,
  Field,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PageHeading,
  Status,
  continueSignIn,
  text,
  useAction,
  Submit,
  AppCodeField,
} from '../ui.js';

/** The signed-in person's account: who they are, their profile (names, picture, e-mails), password and two-step sign-in. */
export function AccountPage() {
  const [session, setSession] = useState<SignInSession | null>(null);
  const profile = useProfile();
  const [loadError, setLoadError] = useState<unknown>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let current = true;
    api.session().then(
      (answer) => {
        if (!current) return;
        // Half signed in (the TOTP step is due): finish that first.
        if (answer.stage !== 'active') continueSignIn(answer);
        else setSession(answer);
      },
      (error) => {
        if (!current) return;
        if (error instanceof ApiError && error.status === 401) navigate('/sign-in', { replace: true });
        else setLoadError(error);
      },
    );
    return () => {
      current = false;
    };
  }, [round]);

  if (!session) {
    return (
      <>
        <PageHeading title="Your account" />
        {loadError ? <ErrorMessage focus error={loadError} /> : <p aria-live="polite">Loading…</p>}
      </>
    );
  }
  const { user } = session;
  return (
    <>
      <PageHeading title="Your account" />
      <SignedInAs session={session} profile={profile.shown} />
      <ProfileSection profile={profile} />
      <ChangePassword email={user.email} />
      <TwoStep session={session} onChange={() => setRound((n) => n + 1)} />
    </>
  );
}

function SignedInAs({ session, profile }: { session: SignInSession; profile: Profile | null }) {
  const user = { ...session.user, ...(profile ? { givenName: profile.givenName, familyName: profile.familyName } : {}) };
  return (
    <section aria-labelledby="who" class="panel">
      <h2 id="who">Signed in</h2>
      <p>
        You are signed in as <strong>{`${user.givenName} ${user.familyName}`.trim() || user.email}</strong> ({user.email}),{' '}
        {user.type === 'client' ? 'a client' : 'staff'}.
      </p>
    </section>
  );
}

/** The types of picture the server takes (it reads the type from the bytes; never SVG). */
const PICTURE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
/** The largest picture the server takes (512 KiB). */
const PICTURE_MAX_BYTES = 512 * 1024;

/**
 * The person's profile: their names, their picture, and whether notifications are e-mailed to them, each part saved
 * on its own (the sign-in API's `…/profile`); the server's word about a field shows beside it.
 */
function useProfile() {
  const loaded = useLoad(() => api.profile(), []);
  const [saved, setSaved] = useState<Profile | null>(null);
  return { shown: saved ?? loaded.data ?? null, error: loaded.error, reload: loaded.reload, set: setSaved };
}

function ProfileSection({ profile }: { profile: ReturnType<typeof useProfile> }) {
  const { shown, set: setProfile } = profile;
  return (
    <section aria-labelledby="profile" class="panel">
      <h2 id="profile">Profile</h2>
      {shown ? (
        <>
          <Names profile={shown} onSaved={setProfile} />
          <Picture profile={shown} onChanged={setProfile} />
          <EmailChoice profile={shown} onSaved={setProfile} />
        </>
      ) : profile.error ? (
        <ErrorMessage error={profile.error}>
          <button type="button" class="secondary" onClick={profile.reload}>
            Try again
          </button>
        </ErrorMessage>
      ) : (
        <p aria-live="polite">Loading your profile…</p>
      )}
    </section>
  );
}

function Names({ profile, onSaved }: { profile: Profile; onSaved: (profile: Profile) => void }) {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => {
      onSaved(await api.updateProfile({ givenName: text(form, 'givenName'), familyName: text(form, 'familyName') }));
      return 'Your name is saved.';
    });
  };
  return (
    <>
      <h3 id="names">Your name</h3>
      <ErrorMessage focus error={namesError(action.error)} />
      <Status>{action.done}</Status>
      {/* novalidate: the server says what is wrong with a name, beside its field */}
      <form class="stack" aria-labelledby="names" onSubmit={submit} noValidate>
        <Field label="Given name" name="givenName" error={action.error}>
          {(props) => <input {...props} autocomplete="given-name" defaultValue={profile.givenName} maxLength={200} />}
        </Field>
        <Field label="Family name" name="familyName" error={action.error}>
          {(props) => <input {...props} autocomplete="family-name" defaultValue={profile.familyName} maxLength={200} />}
        </Field>
        <Submit label="Save" busy={action.busy} />
      </form>
    </>
  );
}

/** A refusal naming a field says so above the form; the field itself says what is wrong (Field). */
const namesError = (error: unknown) =>
  error instanceof ApiError && Object.keys(error.fields).length > 0
    ? new Error('Your name is not saved: see the field marked below.')
    : error;

/** The picture, shown from this server (its own origin, whatever PORTAL_URL's host), or the person's initials. */
function Picture({ profile, onChanged }: { profile: Profile; onChanged: (profile: Profile) => void }) {
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const url = profile.avatarImageUrl;
  const src = url ? `${BASE}${url.slice(url.indexOf('/api/avatars/'))}` : null;
  const initials = `${profile.givenName.charAt(0)}${profile.familyName.charAt(0)}`.toUpperCase();
  const chosen = (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    void action.run(async () => {
      try {
        if (!PICTURE_TYPES.includes(file.type)) throw new Error('Choose a PNG, JPEG, WebP or GIF image.');
        if (file.size > PICTURE_MAX_BYTES) throw new Error('This picture is larger than 512 KB: choose a smaller one.');
        onChanged(await api.uploadAvatar(file));
        return 'Your picture is saved.';
      } finally {
        if (input.current) input.current.value = '';
      }
    });
  };
  const remove = () =>
    void action.run(async () => {
      onChanged(await api.removeAvatar());
      return 'Your picture is removed.';
    });
  return (
    <section aria-labelledby="picture">
      <h3 id="picture">Picture</h3>
      <ErrorMessage focus error={action.error} />
      <Status>{action.busy ? 'Saving your picture…' : action.done}</Status>
      <div class="avatar-row">
        {src ? (
          <img class="avatar" src={src} alt={`${profile.givenName} ${profile.familyName}`.trim()} width={96} height={96} />
        ) : (
          <span class="avatar avatar-initials" role="img" aria-label="No picture yet">
            {initials}
          </span>
        )}
        <div class="stack">
          <Field label="Upload a picture" name="picture" hint="A PNG, JPEG, WebP or GIF image, up to 512 KB.">
            {(props) => (
              <input {...props} ref={input} type="file" accept={PICTURE_TYPES.join(',')} disabled={action.busy} onChange={chosen} />
            )}
          </Field>
          {src ? (
            <div class="actions">
              <button type="button" class="secondary" disabled={action.busy} onClick={remove}>
                Remove
              </button>
            </div>
          ) : null}
        </div>
      </div>
    </section>
  );
}

function EmailChoice({ profile, onSaved }: { profile: Profile; onSaved: (profile: Profile) => void }) {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const email = new FormData(form).get('emailNotifications') === 'on';
    void action.run(async () => {
      onSaved(await api.updateProfile({ notificationPreferences: { email } }));
      return email ? 'Notifications will be e-mailed to you.' : 'Notifications will no longer be e-mailed to you.';
    });
  };
  return (
    <form class="stack" aria-labelledby="emails" onSubmit={submit}>
      <h3 id="emails">Notifications</h3>
      <ErrorMessage focus error={action.error} />
      <Status>{action.done}</Status>
      <label class="choice">
        <input
          type="checkbox"
          name="emailNotifications"
          defaultChecked={profile.notificationPreferences.email}
          aria-describedby="emails-hint"
        />
        E-mail me notifications
      </label>
      <small id="emails-hint" class="hint">
        When off, you still find them here, in the portal. Sign-in links and password resets are always e-mailed.
      </small>
      <Submit label="Save" busy={action.busy} />
    </form>
  );
}

function ChangePassword({ email }: { email: string }) {
  const action = useAction();
  const [done, setDone] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setDone(false);
    void action.run(async () => {
      const currentPassword = text(form, 'currentPassword');
      await api.changePassword({ newPassword: text(form, 'newPassword'), ...(currentPassword ? { currentPassword } : {}) });
      form.reset();
      setDone(true);
    });
  };
  return (
    <section aria-labelledby="password" class="panel">
      <h2 id="password">Password</h2>
      <ErrorMessage focus error={action.error} />
      <Status>{done ? 'Your password is changed. Your other sessions have ended.' : null}</Status>
      <form class="stack" onSubmit={submit}>
        {/* For password managers: whose password this is. */}
        <input type="text" name="username" autocomplete="username" value={email} readOnly hidden />
        <Field label="Current password" name="currentPassword" hint="Leave it empty if you have never set one." error={action.error}>
          {(props) => <input {...props} type="password" autocomplete="current-password" maxLength={PASSWORD_MAX} />}
        </Field>
        <Field label="New password" name="newPassword" hint={`At least ${PASSWORD_MIN} characters.`} error={action.error}>
          {(props) => (
            <input {...props} type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} />
          )}
        </Field>
        <Submit label="Change the password" busy={action.busy} />
      </form>
    </section>
  );
}

function TwoStep({ session, onChange }: { session: SignInSession; onChange: () => void }) {
  const action = useAction();
  const [turnedOff, setTurnedOff] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => {
      await api.disableTotp(text(form, 'code').replace(/\s+/g, ''));
      setTurnedOff(true);
      onChange();
    });
  };
  return (
    <section aria-labelledby="two-step" class="panel">
      <h2 id="two-step">Two-step sign-in</h2>
      <Status>{turnedOff ? 'Two-step sign-in is off.' : null}</Status>
      {session.mfaEnabled ? (
        <>
          <p>On: signing in also takes a code from your authenticator app.</p>
          <ErrorMessage focus error={action.error} />
          <form class="stack" onSubmit={submit}>
            <AppCodeField hint="To turn it off, the 6 digits your app shows now." error={action.error} />
            <Submit label="Turn off" kind="danger" busy={action.busy} />
          </form>
        </>
      ) : (
        <>
          <p>Off: your password (or a link by e-mail) alone signs you in.</p>
          <button type="button" onClick={() => navigate('/enrol-mfa')}>
            Turn on two-step sign-in
          </button>
        </>
      )}
    </section>
  );
}
