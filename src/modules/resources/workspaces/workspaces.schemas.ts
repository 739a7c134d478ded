import { type Static, Type } from 'typebox';
import { Id, Name, PageQuery, Timestamp } from '../../../lib/schemas.js';

export const Workspace = Type.Object(
  {
    id: Id,
    object: Type.Literal('workspace'),
    name: Type.String(),
    dailyQuota: Type.Integer({ description: 'counted (2xx) requests allowed per UTC day' }),
    staffMfaRequired: Type.Boolean({ description: 'whether internal users must sign in with TOTP (enrolling one at their next sign-in)' }),
    sandbox: Type.Boolean({
      description: 'a sandbox has a test clock its operator, the CLI or its keys can move forward (docs/api.md, Test clocks)',
    }),
    brandColor: Type.Optional(
      Type.String({
        description: 'the colour invoice and contract PDFs are drawn in (#rrggbb); absent: one derived from the workspace’s id',
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Workspace' },
);
export type Workspace = Static<typeof Workspace>;

// At most PostgreSQL's integer column can hold: a larger quota is a 400 naming the field, not a 500.
const DailyQuota = Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'counted (2xx) requests allowed per UTC day' });

export const WorkspaceCreate = Type.Object(
  {
    name: Name,
    dailyQuota: Type.Optional(DailyQuota),
    sandbox: Type.Optional(
      Type.Boolean({ description: 'create a sandbox: its time can be advanced by a test clock (default false; fixed for life)' }),
    ),
  },
  { additionalProperties: false, title: 'WorkspaceCreate' },
);
export type WorkspaceCreate = Static<typeof WorkspaceCreate>;

/** At least one field (`portal workspaces update` says which options to give). */
export const WorkspaceUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    dailyQuota: Type.Optional(DailyQuota),
    staffMfaRequired: Type.Optional(
      Type.Boolean({
        description:
          'require TOTP of internal users (workspaceMfaEnabled / workspaceMfaDisabled when it changes); their open portal sessions that passed no TOTP step down to it',
      }),
    ),
    brandColor: Type.Optional(
      Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'the colour of its invoice and contract PDFs, #rrggbb' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'WorkspaceUpdate' },
);
export type WorkspaceUpdate = Static<typeof WorkspaceUpdate>;

/** A workspace as the operator sees it: with its logo's URL and today's use of its quota. */
export const OperatorWorkspace = Type.Object(
  {
    ...Workspace.properties,
    logoUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          'its logo, where its portal serves it (under PORTAL_URL; the path changes with the image): set with PUT /admin/workspaces/{id}/logo; absent: none',
      }),
    ),
    usedToday: Type.Integer({ description: 'requests counted against the quota today (UTC day), as the limit state holds them' }),
  },
  { title: 'OperatorWorkspace' },
);
export type OperatorWorkspace = Static<typeof OperatorWorkspace>;

export const CreatedWorkspace = Type.Object(
  { workspaceId: Id, apiKeyId: Id, apiKey: Type.String({ description: 'its first workspace key, shown only now' }) },
  { title: 'CreatedWorkspace' },
);

/** The operator's list of workspaces: a page (GET /admin/workspaces, `portal workspaces list`). */
export const WorkspaceListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type WorkspaceListQuery = Static<typeof WorkspaceListQuery>;
