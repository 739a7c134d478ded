import { type Static, Type } from 'typebox';
import { Id, Name, Timestamp } from '../../lib/schemas.js';

export const Workspace = Type.Object(
  {
    id: Id,
    object: Type.Literal('workspace'),
    name: Type.String(),
    dailyQuota: Type.Integer({ description: 'counted (2xx) requests allowed per UTC day' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Workspace' },
);
export type Workspace = Static<typeof Workspace>;

const DailyQuota = Type.Integer({ minimum: 0, description: 'counted (2xx) requests allowed per UTC day' });

export const WorkspaceCreate = Type.Object(
  { name: Name, dailyQuota: Type.Optional(DailyQuota) },
  { additionalProperties: false, title: 'WorkspaceCreate' },
);
export type WorkspaceCreate = Static<typeof WorkspaceCreate>;

/** At least one of the two: checked by the caller (`portal workspaces update` says which options to give). */
export const WorkspaceUpdate = Type.Object(
  { name: Type.Optional(Name), dailyQuota: Type.Optional(DailyQuota) },
  { additionalProperties: false, title: 'WorkspaceUpdate' },
);
export type WorkspaceUpdate = Static<typeof WorkspaceUpdate>;
