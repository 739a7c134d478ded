import { type Static, Type } from 'typebox';

const Surface = Type.Enum(['product', 'email']);
const SurfaceDefaults = Type.Object(
  { email: Type.Optional(Type.Boolean()), product: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, description: 'per-internal-user default delivery state; an omitted surface starts off' },
);
const ActionLabel = Type.Object(
  { verb: Type.String(), singularNoun: Type.String(), pluralNoun: Type.String() },
  { additionalProperties: false, description: 'a generic label: verb, count, noun' },
);
const Label = Type.String({ minLength: 1, maxLength: 100, description: 'at most 100 characters' });
const Surfaces = Type.Array(Surface, { minItems: 1, uniqueItems: true, description: 'at least one of product, email' });
const SettingId = Type.String({ minLength: 1, maxLength: 100 });

export const NotificationSetting = Type.Object(
  {
    id: Type.String({ description: 'pass as notificationSettingId when creating a notification' }),
    label: Type.String(),
    surfaces: Type.Array(Surface),
    default: Type.Object({ email: Type.Boolean(), product: Type.Boolean() }),
  },
  { additionalProperties: false },
);
export type NotificationSetting = Static<typeof NotificationSetting>;

export const NotificationSettings = Type.Object(
  {
    object: Type.Literal('notificationSettings'),
    actionLabel: Type.Optional(ActionLabel),
    notifications: Type.Array(NotificationSetting, { description: 'empty when none are declared' }),
  },
  { additionalProperties: false, title: 'NotificationSettings' },
);
export type NotificationSettings = Static<typeof NotificationSettings>;

export const NotificationSettingsCreate = Type.Object(
  {
    notifications: Type.Array(
      Type.Object(
        { id: Type.Optional(SettingId), label: Label, surfaces: Surfaces, default: Type.Optional(SurfaceDefaults) },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: 50,
        description: '1 to 50 settings; an id is generated when omitted, and ids are unique within the install',
      },
    ),
    actionLabel: Type.Optional(ActionLabel),
  },
  { additionalProperties: false, title: 'NotificationSettingsCreate' },
);
export type NotificationSettingsCreate = Static<typeof NotificationSettingsCreate>;

export const NotificationSettingsPatch = Type.Object(
  {
    actionLabel: Type.Optional(
      Type.Union([ActionLabel, Type.Object({}, { additionalProperties: false })], {
        description: 'an empty object clears it; omitted, it is left as is',
      }),
    ),
    notifications: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.Optional(SettingId),
            label: Type.Optional(Label),
            surfaces: Type.Optional(Surfaces),
            default: Type.Optional(SurfaceDefaults),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 50,
          description:
            'deltas, at most 50: without id, adds a setting (label and surfaces required; the id is generated); with only an id, deletes it; with an id and fields, replaces those fields',
        },
      ),
    ),
  },
  { additionalProperties: false, title: 'NotificationSettingsPatch' },
);
export type NotificationSettingsPatch = Static<typeof NotificationSettingsPatch>;
