import { randomUUID } from 'node:crypto';
import type { Harness } from './harness.js';

/** Defines a custom field directly in the database (the `portal custom-fields` command has its own tests). */
export async function defineCustomField(
  h: Harness,
  workspaceId: string,
  field: { entity: 'client' | 'company'; key: string; type: string; options?: string[] },
): Promise<{ id: string; options: { id: string; key: string; label: string }[] }> {
  const id = randomUUID();
  const at = new Date(h.clock.now()).toISOString();
  await h.app.ctx.db
    .insertInto('custom_fields')
    .values({ id, workspace_id: workspaceId, entity_type: field.entity, key: field.key, name: field.key, type: field.type as any, created_at: at, updated_at: at })
    .execute();
  const options = (field.options ?? []).map((label) => ({ id: randomUUID(), key: label.toLowerCase().replace(/[^a-z0-9]+/g, '_'), label }));
  for (const option of options) {
    await h.app.ctx.db.insertInto('custom_field_options').values({ ...option, workspace_id: workspaceId, custom_field_id: id, created_at: at }).execute();
  }
  return { id, options };
}

/** The audit entries of a workspace, oldest first, JSON columns parsed. */
export async function auditEntries(h: Harness, workspaceId: string) {
  const rows = await h.app.ctx.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('event_type').execute();
  return rows.map((r) => ({ ...r, context: JSON.parse(r.context), previous_attributes: r.previous_attributes ? JSON.parse(r.previous_attributes) : null }));
}
