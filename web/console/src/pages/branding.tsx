import { admin, adminApi, ok, path, uploadLogo } from '../api.js';
import type { Workspace } from '../types.js';
import { ErrorMessage, Field, PageHeading, Status, latest, useAction, useLoad } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The types the server takes for a logo (it reads the type from the bytes: anything else is refused). */
const LOGO_TYPES = 'image/png,image/jpeg,image/webp,image/gif';

/** A URL under PORTAL_URL as a path of this origin: the console shows nothing from another. */
const samePath = (url: string) => {
  const { pathname } = new URL(url, window.location.href);
  return pathname;
};

/**
 * A workspace's branding: the logo and the colour its portal, e-mails and documents show beside its name. The admin
 * surface has no GET of one workspace: it comes from the list, as the workspace's navigation reads it.
 */
export function BrandingPage({ workspaceId }: { workspaceId: string }) {
  const workspaces = useLoad(() => ok(adminApi.GET('/admin/workspaces', { params: { query: { limit: 1000 } } })), []);
  const workspace = workspaces.data?.data.find((w) => w.id === workspaceId);
  // One action for the logo's changes: the last one's error is the one shown.
  const logo = useAction();
  const color = useAction();

  const submitLogo = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('logo') as HTMLInputElement).files?.[0];
    if (!file) return;
    await logo.run(async () => {
      await uploadLogo(path`/workspaces/${workspaceId}/logo`, file);
      form.reset();
      workspaces.reload();
      return `Logo set from ${file.name}.`;
    });
  };

  const removeLogo = () =>
    logo.runIfConfirmed('Remove the logo? The portal, e-mails and documents show the name alone.', async () => {
      await admin.delete(path`/workspaces/${workspaceId}/logo`);
      workspaces.reload();
      return 'Logo removed.';
    });

  const saveColor = async (event: Event) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget as HTMLFormElement).get('brandColor') ?? '');
    await color.run(async () => {
      await admin.patch(path`/workspaces/${workspaceId}`, { brandColor: value });
      workspaces.reload();
      return `Brand colour set to ${value}.`;
    });
  };

  return (
    <>
      <PageHeading title="Branding" context={useWorkspaceName()} />
      <Status>{latest(logo, color)}</Status>
      <ErrorMessage error={workspaces.error} />
      {workspaces.loading && !workspaces.data ? <p aria-live="polite">Loading…</p> : null}
      {workspace ? <LogoPanel workspace={workspace} action={logo} submit={submitLogo} removeLogo={removeLogo} /> : null}
      {workspace ? (
        <section class="panel" aria-labelledby="brand-color">
          <h2 id="brand-color">Brand colour</h2>
          <p>The portal's links and buttons, the e-mails' band and the PDFs are drawn in it.</p>
          <ErrorMessage error={color.error} />
          <form class="inline-form" onSubmit={saveColor}>
            <Field
              label="Colour"
              name="brandColor"
              error={color.error}
              hint={workspace.brandColor ? undefined : 'None set: one derived from the id.'}
            >
              {(props) => (
                <input {...props} type="color" defaultValue={workspace.brandColor ?? '#334155'} key={workspace.brandColor ?? ''} />
              )}
            </Field>
            <div class="actions">
              <button type="submit" disabled={color.busy}>
                {color.busy ? 'Saving…' : 'Save colour'}
              </button>
            </div>
          </form>
        </section>
      ) : null}
    </>
  );
}

function LogoPanel({
  workspace,
  action,
  submit,
  removeLogo,
}: {
  workspace: Workspace;
  action: ReturnType<typeof useAction>;
  submit: (event: Event) => void;
  removeLogo: () => void;
}) {
  return (
    <section class="panel" aria-labelledby="logo">
      <h2 id="logo">Logo</h2>
      <p>Shown beside the workspace's name in its portal, its e-mails and its invoice and contract PDFs (PDFs: PNG or JPEG only).</p>
      {workspace.logoUrl ? (
        <div class="logo-preview">
          <img src={samePath(workspace.logoUrl)} alt={`The logo of ${workspace.name}`} height={48} />
        </div>
      ) : (
        <p class="hint">No logo yet: the name is shown alone.</p>
      )}
      <ErrorMessage error={action.error} />
      <form class="logo-form" onSubmit={submit}>
        <Field label={workspace.logoUrl ? 'New logo' : 'Logo'} hint="PNG, JPEG, WebP or GIF, at most 512 KB.">
          {(props) => <input {...props} name="logo" type="file" accept={LOGO_TYPES} required />}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {workspace.logoUrl ? 'Replace logo' : 'Set logo'}
          </button>
          {workspace.logoUrl ? (
            <button type="button" class="danger" onClick={removeLogo} disabled={action.busy}>
              Remove logo
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
