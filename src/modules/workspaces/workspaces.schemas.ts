import { type Static, Type } from 'typebox';
import { Id, Timestamp } from '../../lib/schemas.js';

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
