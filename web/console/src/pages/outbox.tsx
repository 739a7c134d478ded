import type { ComponentChildren } from 'preact';
import { adminApi, ok } from '../api.js';
import { Badge, DataTable, ListState, PageHeading, Pager, formatDate, usePaged } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/**
 * The workspace's e-mail outbox, newest first. While the server has no SMTP_URL nothing is sent and each e-mail shows
 * its text with its links (sign-in, reset, invite): local development's inbox. With SMTP_URL the server never
 * shows a body.
 */
export function OutboxPage({ workspaceId }: { workspaceId: string }) {
  const list = usePaged(
    (nextToken) =>
      ok(adminApi.GET('/admin/workspaces/{workspaceId}/outbox', { params: { path: { workspaceId }, query: { limit: 25, nextToken } } })),
    [workspaceId],
  );
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="E-mail outbox" context={useWorkspaceName()} />
      <p class="hint">
        Without SMTP_URL the server sends nothing: each e-mail waits here with its text and links. With SMTP_URL they are sent, and their
        text is never shown.
      </p>
      <ListState list={list} empty="The outbox is empty." what="the outbox" />
      {rows.length > 0 ? (
        <DataTable caption="E-mails of the workspace, newest first" columns={['Queued', 'To', 'Subject', 'Status']}>
          {rows.map((email) => (
            <tr key={email.id}>
              <td data-label="Queued">{formatDate(email.createdAt)}</td>
              <td data-label="To">{email.to}</td>
              <td data-label="Subject">
                <div>{email.subject}</div>
                {email.text === undefined ? null : (
                  <details>
                    <summary>Text</summary>
                    <pre>{withLinks(email.text)}</pre>
                  </details>
                )}
              </td>
              <td data-label="Status">
                <Badge value={email.status} />
                <div class="small">{email.attempts} attempt(s)</div>
                {email.lastError ? <div class="small">{email.lastError}</div> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Outbox" />
    </>
  );
}

/** The text with its http(s) addresses as links (the e-mail's sign-in, reset or invite link, to open it from here). */
function withLinks(text: string): ComponentChildren {
  return text.split(/(https?:\/\/\S+)/).map((part, i) =>
    i % 2 === 1 ? (
      <a key={i} href={part} rel="noreferrer">
        {part}
      </a>
    ) : (
      part
    ),
  );
}
