import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { DataTable, ListState, Pager, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { messageOf, useLoad } from '../../../kit/ui.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { ApiError, ok, v1 } from '../api.js';
import { BASE, Link } from '../router.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, useAction } from '../ui.js';

// The Files section: the file channels the person sees, their folders (breadcrumbs back up), downloads (each file,
// a folder as a zip), and, where the folder lets clients write, uploads with their progress and new folders.

type Channel = Item<'/v1/channels/files'>;
type FileObject = Item<'/v1/files'>;

/** Every path of the section: the channels, a channel's root, or one of its folders. */
export function FilesPage({ path }: { path: string }) {
  const inFolder = match('/files/:channelId/:folderId', path);
  if (inFolder) return <FolderPage channelId={inFolder.channelId} folderId={inFolder.folderId} />;
  const atRoot = match('/files/:channelId', path);
  if (atRoot) return <FolderPage channelId={atRoot.channelId} />;
  return <ChannelsPage />;
}

// --- the channels ------------------------------------------------------------------------------------------------

function ChannelsPage() {
  const signedIn = useSignedIn();
  const list = usePaged(async (nextToken) => {
    const page = await ok(v1.GET('/v1/channels/files', { params: { query: { limit: 50, ...(nextToken ? { nextToken } : {}) } } }));
    const names = await namesOf(page.data, signedIn);
    return { ...page, data: page.data.map((channel) => ({ channel, label: channelLabel(channel, signedIn, names) })) };
  }, []);
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Files" context={signedIn.workspace.name} />
      <ListState
        list={list}
        what={signedIn.person.type === 'client' ? 'your files' : 'the file channels'}
        empty={signedIn.person.type === 'client' ? 'No files are shared with you yet.' : 'No file channels yet.'}
      />
      {rows.length > 0 ? (
        <ul class="channels">
          {rows.map(({ channel, label }) => (
            <li key={channel.id}>
              <Link href={`/files/${encodeURIComponent(channel.id)}`}>{label.name}</Link>
              <span class="hint"> {label.who}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <Pager list={list} label="File channels" />
    </>
  );
}

/** The names a channel's label needs (its company's, its clients' for staff), each looked up once; unknown ones left out. */
async function namesOf(channels: Channel[], signedIn: SignedIn): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const companies = new Set(channels.filter((c) => c.membershipType === 'company').map((c) => c.companyId));
  const clients = new Set(signedIn.person.type === 'client' ? [] : channels.flatMap((c) => c.memberIds ?? []));
  await Promise.all([
    ...[...companies].map(async (id) => {
      const company = await ok(v1.GET('/v1/companies/{id}', { params: { path: { id } } })).catch(() => null);
      if (company) names.set(id, company.name);
    }),
    ...[...clients].map(async (id) => {
      const client = await ok(v1.GET('/v1/clients/{id}', { params: { path: { id } } })).catch(() => null);
      if (client) names.set(id, `${client.givenName} ${client.familyName}`.trim() || client.email);
    }),
  ]);
  return names;
}

interface ChannelLabel {
  /** what the channel is called */
  name: string;
  /** who shares it */
  who: string;
}

/** A channel has no name of its own: it is called after whom it is shared with, as the person sees it. */
function channelLabel(channel: Channel, { person }: SignedIn, names: Map<string, string>): ChannelLabel {
  const client = person.type === 'client';
  const company = names.get(channel.companyId) ?? 'your company';
  if (channel.membershipType === 'company')
    return {
      name: names.get(channel.companyId) ?? 'Company files',
      who: client ? `shared with everyone at ${company}` : 'a company’s files',
    };
  const members = (channel.memberIds ?? []).map((id) => names.get(id)).filter((name): name is string => Boolean(name));
  if (channel.membershipType === 'individual')
    return client ? { name: 'Your files', who: 'shared with you' } : { name: members[0] ?? 'A client’s files', who: 'one client’s files' };
  return client
    ? { name: 'Your group’s files', who: `shared with ${channel.memberIds?.length ?? 0} people` }
    : { name: members.join(', ') || 'A group’s files', who: 'a group’s files' };
}

// --- a folder (or a channel's root) ----------------------------------------------------------------------------

/** At most this many of a channel's items are read (pages of 1,000). */
const MAX_PAGES = 20;

/**
 * The whole channel, page by page: the list answers everything under a path at any depth, and a folder knows
 * neither its parent's id nor its children, so the folder's contents and its breadcrumbs are worked out from it.
 */
async function channelContents(channelId: string): Promise<{ files: FileObject[]; complete: boolean }> {
  const files: FileObject[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await ok(v1.GET('/v1/files', { params: { query: { channelId, limit: 1000, ...(nextToken ? { nextToken } : {}) } } }));
    files.push(...answer.data);
    nextToken = answer.nextToken;
    if (!nextToken) return { files, complete: true };
  }
  return { files, complete: false };
}

const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const joinPath = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);

/** Folders first, then by name as people sort them (2 before 10). */
const byKindAndName = (a: FileObject, b: FileObject) =>
  Number(b.object === 'folder') - Number(a.object === 'folder') || a.name.localeCompare(b.name, undefined, { numeric: true });

function FolderPage({ channelId, folderId }: { channelId: string; folderId?: string }) {
  const signedIn = useSignedIn();
  // Loaded again after an upload or a new folder (`round`): what was shown stays until the new answer.
  const [round, setRound] = useState(0);
  const loaded = useLoad(async () => {
    const channel = await ok(v1.GET('/v1/channels/files/{id}', { params: { path: { id: channelId } } }));
    const [contents, names] = await Promise.all([channelContents(channelId), namesOf([channel], signedIn)]);
    return { channel, label: channelLabel(channel, signedIn, names), ...contents };
  }, [channelId, round]);

  if (!loaded.data) {
    const failed = loaded.error && !loaded.loading;
    const missing = failed && loaded.error instanceof ApiError && loaded.error.status === 404;
    return (
      <>
        <PageHeading title={missing ? 'Files not found' : failed ? 'Something went wrong' : 'Files'} />
        {missing ? (
          <ErrorMessage error="These files are not here, or are no longer shared with you.">
            <p>
              <Link href="/files">{signedIn.person.type === 'client' ? 'All your files' : 'All the file channels'}</Link>
            </p>
          </ErrorMessage>
        ) : failed ? (
          <LoadFailed error={loaded.error} retry={() => setRound((n) => n + 1)} />
        ) : (
          <Loading>Loading the files…</Loading>
        )}
      </>
    );
  }
  const { channel, label, files, complete } = loaded.data;
  const folder = folderId === undefined ? undefined : files.find((f) => f.id === folderId && f.object === 'folder');
  if (folderId !== undefined && !folder) {
    return (
      <>
        <PageHeading title="Folder not found" />
        <ErrorMessage error="This folder is not here: it may have been moved or deleted.">
          <p>
            <Link href={`/files/${encodeURIComponent(channel.id)}`}>Back to {label.name}</Link>
          </p>
        </ErrorMessage>
      </>
    );
  }
  return (
    <Folder
      key={folder?.id ?? 'root'}
      signedIn={signedIn}
      channel={channel}
      label={label}
      folder={folder}
      files={files}
      complete={complete}
      reloading={loaded.loading}
      reload={() => setRound((n) => n + 1)}
    />
  );
}

function Folder({
  signedIn,
  channel,
  label,
  folder,
  files,
  complete,
  reloading,
  reload,
}: {
  signedIn: SignedIn;
  channel: Channel;
  label: ChannelLabel;
  folder: FileObject | undefined;
  files: FileObject[];
  complete: boolean;
  reloading: boolean;
  reload: () => void;
}) {
  const here = folder?.path ?? '';
  const children = files.filter((f) => parentOf(f.path) === here).sort(byKindAndName);
  const folders = new Map(files.filter((f) => f.object === 'folder').map((f) => [f.path, f]));
  // Staff write anywhere in the channels they see; clients where the folder (or the channel's root) lets them.
  const permissions = folder ? folder.clientPermissions : channel.clientPermissions;
  const writable = signedIn.person.type !== 'client' || permissions === 'read-write';
  // What a zip can hold: files with content and folders (links and unfinished uploads have no content).
  const zippable = children.filter((f) => f.object === 'folder' || (f.object === 'file' && f.status === 'completed'));
  const channelHref = `/files/${encodeURIComponent(channel.id)}`;
  return (
    <>
      <Breadcrumbs channelHref={channelHref} label={label} folder={folder} folders={folders} />
      <PageHeading title={folder?.name ?? label.name} context={folder ? label.name : 'Files'} />
      {signedIn.person.type === 'client' && !writable ? (
        <p class="notice read-only">
          <strong>Read-only.</strong> You can open and download what is here, but not add to it.
        </p>
      ) : null}
      {!complete ? <p class="notice">This channel holds too many items to show them all here: some are left out.</p> : null}
      <section aria-labelledby="contents" class="panel">
        <div class="section-heading">
          <h2 id="contents">{folder ? 'In this folder' : 'Files and folders'}</h2>
          {zippable.length > 0 && zippable.length <= 100 ? (
            <a
              class="button secondary"
              href={archiveUrl(folder ? [folder.id] : zippable.map((f) => f.id))}
              download={`${folder?.name ?? label.name}.zip`}
            >
              Download {folder ? 'the folder' : 'everything'} as a zip
            </a>
          ) : null}
        </div>
        {reloading ? <Loading>Refreshing…</Loading> : null}
        {children.length === 0 ? (
          <p class="empty">{writable ? 'Nothing here yet: add files or a folder below.' : 'Nothing here yet.'}</p>
        ) : (
          <DataTable caption={`Contents of ${folder?.name ?? label.name}`} columns={['Name', 'Size', 'Changed']} actions>
            {children.map((item) => (
              <Row key={item.id} item={item} channelHref={channelHref} />
            ))}
          </DataTable>
        )}
      </section>
      {writable ? (
        <>
          <Upload channelId={channel.id} folderPath={here} onUploaded={reload} />
          <NewFolder channelId={channel.id} folderPath={here} onCreated={reload} />
        </>
      ) : null}
    </>
  );
}

function Breadcrumbs({
  channelHref,
  label,
  folder,
  folders,
}: {
  channelHref: string;
  label: ChannelLabel;
  folder: FileObject | undefined;
  folders: Map<string, FileObject>;
}) {
  // The folders above this one, from the top: each a link when the channel's list named it.
  const above: { name: string; id?: string }[] = [];
  if (folder) {
    const segments = folder.path.split('/').slice(0, -1);
    for (const [at, name] of segments.entries()) above.push({ name, id: folders.get(segments.slice(0, at + 1).join('/'))?.id });
  }
  return (
    <nav aria-label="Breadcrumb" class="breadcrumbs">
      <ol>
        <li>
          <Link href="/files">Files</Link>
        </li>
        <li>{folder ? <Link href={channelHref}>{label.name}</Link> : <span aria-current="page">{label.name}</span>}</li>
        {above.map((crumb) => (
          <li key={crumb.name}>
            {crumb.id ? <Link href={`${channelHref}/${encodeURIComponent(crumb.id)}`}>{crumb.name}</Link> : crumb.name}
          </li>
        ))}
        {folder ? (
          <li>
            <span aria-current="page">{folder.name}</span>
          </li>
        ) : null}
      </ol>
    </nav>
  );
}

/** The person's cookie reaches /v1 under the portal's path: a plain link downloads (an attachment, never shown inline). */
const downloadUrl = (id: string) => `${BASE}/v1/files/${encodeURIComponent(id)}/download`;
const archiveUrl = (ids: string[]) => `${BASE}/v1/files/archive?ids=${ids.map(encodeURIComponent).join(',')}`;

function Row({ item, channelHref }: { item: FileObject; channelHref: string }) {
  return (
    <tr>
      <td data-label="Name" class="file-name">
        {item.object === 'folder' ? (
          <Link href={`${channelHref}/${encodeURIComponent(item.id)}`} class="kind-folder">
            {item.name}
            <span class="visually-hidden"> (folder)</span>
          </Link>
        ) : item.object === 'link' ? (
          <a href={item.linkUrl} target="_blank" rel="noopener noreferrer">
            {item.name}
            <span class="visually-hidden"> (link, opens in a new tab)</span>
            <span aria-hidden="true"> ↗</span>
          </a>
        ) : (
          item.name
        )}
        {item.object === 'folder' && item.clientPermissions === 'read-only' ? <span class="badge"> read-only</span> : null}
        {item.object === 'file' && item.status === 'pending' ? <span class="badge badge-pending">upload not finished</span> : null}
      </td>
      <td data-label="Size">{item.object === 'file' && item.size !== undefined ? sizeOf(item.size) : '—'}</td>
      <td data-label="Changed">{when(item.updatedAt)}</td>
      <td class="actions">
        {item.object === 'file' && item.status === 'completed' ? (
          <a href={downloadUrl(item.id)} download={item.name} aria-label={`Download ${item.name}`}>
            Download
          </a>
        ) : null}
        {item.object === 'folder' ? (
          <a href={archiveUrl([item.id])} download={`${item.name}.zip`} aria-label={`Download as a zip: ${item.name}`}>
            Download as a zip
          </a>
        ) : null}
      </td>
    </tr>
  );
}

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** A size as people read it: 1,000 bytes, 2.4 MB (in steps of 1,024). */
function sizeOf(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return new Intl.NumberFormat(undefined, {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

const when = (iso: string) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

// --- adding: files (with their progress) and folders ----------------------------------------------------------

interface Progress {
  name: string;
  loaded: number;
  total: number;
  /** uploading, then sent (the server stores it), then done or failed */
  state: 'waiting' | 'uploading' | 'storing' | 'done' | 'failed';
  error?: unknown;
}

/** How many files go up at once. */
const AT_ONCE = 3;

function Upload({ channelId, folderPath, onUploaded }: { channelId: string; folderPath: string; onUploaded: () => void }) {
  const [uploads, setUploads] = useState<Progress[]>([]);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState('');
  const update = (at: number, change: Partial<Progress>) =>
    setUploads((all) => all.map((upload, index) => (index === at ? { ...upload, ...change } : upload)));

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('files') as HTMLInputElement;
    const chosen = [...(input.files ?? [])];
    if (chosen.length === 0) return;
    setBusy(true);
    setSaid(`Uploading ${count(chosen.length, 'file')}…`);
    setUploads(chosen.map((file) => ({ name: file.name, loaded: 0, total: file.size, state: 'waiting' })));
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < chosen.length) {
        const at = next++;
        try {
          await uploadFile(chosen[at], channelId, folderPath, (change) => update(at, change));
          update(at, { state: 'done' });
        } catch (error) {
          failed++;
          update(at, { state: 'failed', error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, chosen.length) }, worker));
    form.reset();
    setBusy(false);
    const uploaded = chosen.length - failed;
    setSaid(
      failed === 0 ? `${count(uploaded, 'file')} uploaded.` : `${count(uploaded, 'file')} uploaded, ${count(failed, 'file')} failed.`,
    );
    onUploaded();
  };

  return (
    <section aria-labelledby="upload" class="panel">
      <h2 id="upload">Add files</h2>
      <form class="stack" onSubmit={submit}>
        <Field label="Files" name="files" hint="Choose one or several.">
          {(props) => <input {...props} type="file" multiple required disabled={busy} />}
        </Field>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Upload
          </button>
        </div>
      </form>
      <Status>{said}</Status>
      {uploads.length > 0 ? (
        <ul class="uploads">
          {uploads.map((upload, at) => (
            <UploadLine key={`${at}-${upload.name}`} upload={upload} at={at} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function UploadLine({ upload, at }: { upload: Progress; at: number }) {
  const percent = upload.total === 0 ? (upload.state === 'waiting' ? 0 : 100) : Math.floor((upload.loaded / upload.total) * 100);
  const id = `upload-${at}`;
  const state = {
    waiting: 'Waiting',
    uploading: `${sizeOf(upload.loaded)} of ${sizeOf(upload.total)}`,
    storing: 'Sent; finishing…',
    done: 'Uploaded',
    failed: `Failed: ${messageOf(upload.error)}`,
  }[upload.state];
  return (
    <li class={`upload upload-${upload.state}`}>
      <span id={id} class="upload-name">
        {upload.name}
      </span>
      <div
        class="progress"
        role="progressbar"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%`}
      >
        <div class="progress-bar" style={{ width: `${percent}%` }} />
      </div>
      <span class="upload-state">{state}</span>
    </li>
  );
}

/** Creates the file in the folder, then sends its bytes to the upload URL the API gave, reporting the bytes sent. */
async function uploadFile(file: File, channelId: string, folderPath: string, report: (change: Partial<Progress>) => void) {
  const created = await ok(
    v1.POST('/v1/files/{fileType}', { params: { path: { fileType: 'file' } }, body: { channelId, path: joinPath(folderPath, file.name) } }),
  );
  if (!created.uploadUrl) throw new Error('The server gave no address to upload the file to.');
  report({ state: 'uploading' });
  await put(created.uploadUrl, file, (loaded) => report(loaded >= file.size ? { loaded, state: 'storing' } : { loaded }));
}

/** A PUT of the file's bytes with XMLHttpRequest, whose upload events say how much has gone (fetch has none). */
function put(url: string, file: File, sent: (loaded: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.setRequestHeader('content-type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => sent(event.loaded);
    request.upload.onload = () => sent(file.size);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) resolve();
      else reject(new ApiError(request.status, 'upload', uploadRefusal(request)));
    };
    request.onerror = () => reject(new ApiError(0, 'network', 'The upload was cut off. Check your connection and try again.'));
    request.send(file);
  });
}

/** The upload route's own message, or a plain one when it gave none. */
function uploadRefusal(request: XMLHttpRequest): string {
  try {
    const body = JSON.parse(request.responseText) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: said below
  }
  return `The server refused the upload (${request.status}).`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function NewFolder({ channelId, folderPath, onCreated }: { channelId: string; folderPath: string; onCreated: () => void }) {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('name') ?? '').trim();
    void action.run(async () => {
      // A slash would name a folder inside another: a name is one segment.
      if (/[/\\]/.test(name)) throw new Error('A folder’s name cannot contain / or \\.');
      await ok(
        v1.POST('/v1/files/{fileType}', {
          params: { path: { fileType: 'folder' } },
          body: { channelId, path: joinPath(folderPath, name) },
        }),
      );
      form.reset();
      onCreated();
      return `Folder “${name}” created.`;
    });
  };
  return (
    <section aria-labelledby="new-folder" class="panel">
      <h2 id="new-folder">New folder</h2>
      <ErrorMessage focus error={action.error} />
      <Status>{action.done}</Status>
      <form class="stack" onSubmit={submit}>
        <Field label="Folder name" name="path" error={action.error}>
          {(props) => <input {...props} name="name" required maxLength={255} autocomplete="off" />}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Create the folder
          </button>
        </div>
      </form>
    </section>
  );
}
