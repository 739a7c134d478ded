import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { APP_API_METHODS, type AppApiResourcesTable, type DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { AppApiResource, AppApiResourceListQuery } from './app-api.schemas.js';

function toResource(row: AppApiResourcesTable): AppApiResource {
  const resource: AppApiResource = {
    id: row.id,
    object: 'appApiResource',
    name: row.name,
    appId: row.app_id,
    methods: JSON.parse(row.methods),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.description !== null) resource.description = row.description;
  if (row.path !== null) resource.path = row.path;
  return resource;
}

/** Methods in their one order, so that a declaration compares equal whatever order it was given in. */
export const orderedMethods = (methods: readonly string[]) => APP_API_METHODS.filter((m) => methods.includes(m));

const ofApp = (db: Kysely<DB>, access: Access, appId: string) =>
  db.selectFrom('app_api_resources').selectAll().where('workspace_id', '=', access.workspaceId).where('app_id', '=', appId);

/** One app's resources, or (appId undefined) every app's of the workspace. */
export function listResources(
  db: Kysely<DB>,
  access: Access,
  appId: string | undefined,
  query: AppApiResourceListQuery,
  tokens: PageTokens,
): Promise<Page<AppApiResource>> {
  const every = db.selectFrom('app_api_resources').selectAll().where('workspace_id', '=', access.workspaceId);
  return fetchPage(
    appId === undefined ? every : ofApp(db, access, appId),
    'app_api_resources',
    query,
    tokens,
    pageScope(access, 'app_api_resources', { appId }),
    toResource,
  );
}

export async function findResource(db: Kysely<DB>, access: Access, appId: string, name: string): Promise<AppApiResource | undefined> {
  const row = await ofApp(db, access, appId).where('name', '=', name).executeTakeFirst();
  return row && toResource(row);
}

export function insertResource(work: UnitOfWork, access: Access, resource: AppApiResource): void {
  work.write(
    work.db.insertInto('app_api_resources').values({
      id: resource.id,
      workspace_id: access.workspaceId,
      app_id: resource.appId,
      name: resource.name,
      description: resource.description ?? null,
      methods: JSON.stringify(resource.methods),
      path: resource.path ?? null,
      created_at: resource.createdAt,
      updated_at: resource.updatedAt,
    }),
    { app_api_resources_name_unique: resource.name },
  );
}

export function updateResource(work: UnitOfWork, access: Access, resource: AppApiResource): void {
  work.write(
    work.db
      .updateTable('app_api_resources')
      .set({
        description: resource.description ?? null,
        methods: JSON.stringify(resource.methods),
        path: resource.path ?? null,
        updated_at: resource.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', resource.id),
  );
}

export function deleteResource(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('app_api_resources').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

/** Stores (or replaces) the app's sealed builder secret. */
export function upsertBuilderSecret(work: UnitOfWork, access: Access, appId: string, sealed: string, at: string): void {
  work.write(
    work.db
      .insertInto('app_builder_secrets')
      .values({ workspace_id: access.workspaceId, app_id: appId, sealed_secret: sealed, updated_at: at })
      .onConflict((oc) => oc.columns(['workspace_id', 'app_id']).doUpdateSet({ sealed_secret: sealed, updated_at: at })),
  );
}
