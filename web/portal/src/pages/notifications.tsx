import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { ListState, Pager, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { useLoad } from '../../../kit/ui.js';
import { ok, type Person, v1 } from '../api.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import type { Waiting } from '../sections.js';
import { ErrorMessage, LoadFailed, Loading, PageHeading, useAction } from '../ui.js';

type Notification = Item<'/v1/notifications'>;

/** The person's own notifications: the API's recipient filter for a client or an internal user. */
const recipientOf = (person: Person) =>
  person.type === 'client' ? { recipientClientId: person.id } : { recipientInternalUserId: person.id };

const titleOf = (n: Notification) => n.deliveryTargets.inProduct?.title ?? n.deliveryTargets.email?.subject ?? 'Notification';
const bodyOf = (n: Notification) => n.deliveryTargets.inProduct?.body ?? n.deliveryTargets.email?.body ?? '';
const isUnread = (n: Notification) => n.deliveryTargets.inProduct?.isRead === false;
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The unread ones (the API's default); one page is enough to say "some", up to its size. */
export async function notificationsWaiting({ person }: SignedIn): Promise<Waiting> {
  const unread = await ok(v1.GET('/v1/notifications', { params: { query: { ...recipientOf(person), limit: 100 } } }));
  const count = unread.data.length;
  return { section: '/notifications', count, says: `${count}${unread.nextToken ? '+' : ''} unread notification${count === 1 ? '' : 's'}` };
}

export function NotificationsPage({ path }: { path: string }) {
  const one = match('/notifications/:id', path);
  return one ? <NotificationPage id={one.id} /> : <NotificationList />;
}

/** Every notification of the person, newest first, unread ones marked; read ones only when asked for. */
function NotificationList() {
  const { person } = useSignedIn();
  const [includeRead, setIncludeRead] = useState(false);
  const list = usePaged(
    (nextToken) =>
      ok(v1.GET('/v1/notifications', { params: { query: { ...recipientOf(person), includeRead, ...(nextToken ? { nextToken } : {}) } } })),
    [includeRead],
  );
  return (
    <>
      <PageHeading title="Notifications" />
      <label class="check">
        <input type="checkbox" checked={includeRead} onChange={(event) => setIncludeRead(event.currentTarget.checked)} /> Show read ones too
      </label>
      <ListState
        list={list}
        what="notifications"
        empty={includeRead ? 'You have no notifications.' : 'You have no unread notifications.'}
      />
      {list.data && list.data.data.length > 0 ? (
        <ul class="notifications">
          {list.data.data.map((n) => (
            <li key={n.id} class={isUnread(n) ? 'unread' : undefined}>
              <Link href={`/notifications/${n.id}`}>{titleOf(n)}</Link>
              {isUnread(n) ? <span class="badge badge-open">unread</span> : null}
              <div class="muted">{when(n.createdAt)}</div>
            </li>
          ))}
        </ul>
      ) : null}
      <Pager list={list} label="Notifications" />
    </>
  );
}

/**
 * One notification: where a notification e-mail's link lands. Opening it marks it read, as the hosted portal does
 * (the API has no other way to one notification: marking it read answers it); it can be marked unread again.
 */
function NotificationPage({ id }: { id: string }) {
  const loaded = useLoad(() => ok(v1.POST('/v1/notifications/{id}/read', { params: { path: { id } } })), [id]);
  const [current, setCurrent] = useState<Notification | null>(null);
  const action = useAction();
  const n = current ?? loaded.data;
  if (!n) {
    return (
      <>
        <PageHeading title="Notification" />
        {loaded.error && !loaded.loading ? (
          <LoadFailed error={loaded.error} retry={loaded.reload} />
        ) : (
          <Loading>Loading the notification…</Loading>
        )}
        <p>
          <Link href="/notifications">All notifications</Link>
        </p>
      </>
    );
  }
  const markUnread = () =>
    void action.run(async () => setCurrent(await ok(v1.POST('/v1/notifications/{id}/unread', { params: { path: { id } } }))));
  return (
    <>
      <PageHeading title={titleOf(n)} context="Notification" />
      <p class="muted">{when(n.createdAt)}</p>
      {bodyOf(n) ? <p class="prose">{bodyOf(n)}</p> : null}
      <ErrorMessage focus error={action.error} />
      <div class="actions">
        {isUnread(n) ? (
          <span>Unread.</span>
        ) : (
          <button type="button" class="secondary" onClick={markUnread} disabled={action.busy}>
            Mark as unread
          </button>
        )}
        <Link href="/notifications">All notifications</Link>
      </div>
    </>
  );
}
