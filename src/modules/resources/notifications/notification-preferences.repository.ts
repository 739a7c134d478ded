import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';

/** The surfaces an internal user chose, setting by setting (null: not chosen, the setting's default applies). */
export function chosenPreferences(db: Kysely<DB>, access: Access, internalUserId: string) {
  return db
    .selectFrom('notification_preferences')
    .select(['install_id', 'setting_id', 'email', 'product'])
    .where('workspace_id', '=', access.workspaceId)
    .where('internal_user_id', '=', internalUserId)
    .execute();
}

const bit = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);

/** Sets the surfaces given of one setting for the user; the others keep their state. */
export function upsertPreference(
  work: UnitOfWork,
  access: Access,
  choice: { internalUserId: string; installId: string; settingId: string; email?: boolean; product?: boolean; at: string },
): void {
  const { email, product } = choice;
  work.write(
    work.db
      .insertInto('notification_preferences')
      .values({
        workspace_id: access.workspaceId,
        internal_user_id: choice.internalUserId,
        install_id: choice.installId,
        setting_id: choice.settingId,
        email: bit(email),
        product: bit(product),
        updated_at: choice.at,
      })
      .onConflict((oc) =>
        oc.columns(['internal_user_id', 'install_id', 'setting_id']).doUpdateSet((eb) => ({
          ...(email !== undefined ? { email: eb.ref('excluded.email') } : {}),
          ...(product !== undefined ? { product: eb.ref('excluded.product') } : {}),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      ),
  );
}
