import { type Static, Type } from 'typebox';
import { RefId } from '../../../lib/schemas.js';

const NotificationPreference = Type.Object(
  {
    installId: Type.String(),
    notificationSettingId: Type.String(),
    email: Type.Boolean(),
    product: Type.Boolean(),
    isDefault: Type.Boolean({ description: 'true while the user has set nothing for this setting (its default applies)' }),
  },
  { additionalProperties: false },
);

export const NotificationPreferences = Type.Object(
  { data: Type.Array(NotificationPreference, { description: 'one per declared setting of every install, installs in sidebar order' }) },
  { additionalProperties: false, title: 'NotificationPreferences' },
);
export type NotificationPreferences = Static<typeof NotificationPreferences>;

export const NotificationPreferenceUpdate = Type.Object(
  {
    installId: RefId('the install that declares the setting'),
    notificationSettingId: Type.String(),
    email: Type.Optional(Type.Boolean()),
    product: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'NotificationPreferenceUpdate' },
);
export type NotificationPreferenceUpdate = Static<typeof NotificationPreferenceUpdate>;
