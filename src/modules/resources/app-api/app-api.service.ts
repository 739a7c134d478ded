import { randomBytes } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { recordAudit } from '../../../audit/index.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import * as repo from './app-api.repository.js';
import {
  type AppApiResource,
  type AppApiResourceListQuery,
  type AppApiResourceReplace,
  type AppBuilderSecret,
  NAME_PATTERN,
} from './app-api.schemas.js';

/**
 * The app a caller is: an app API key in X-API-KEY, or a bearer token minted from it, of a key made with an
 * `appId`; undefined for any other caller (a workspace key, a session), which has no resources of its own.
 */
function appOf(caller: Caller): string | undefined {
  const { principal } = caller;
  return (principal.kind === 'appKey' || principal.kind === 'bearer') && principal.appId ? principal.appId : undefined;
}

/** An app lists its own resources; a workspace key or staff every app's of the workspace (filter appId). */
export function listResources(
  database: Database,
  caller: Caller,
  query: AppApiResourceListQuery,
  tokens: PageTokens,
): Promise<Page<AppApiResource>> {
  const own = appOf(caller);
  if (own !== undefined && query.appId !== undefined && query.appId !== own) return Promise.resolve({ data: [] });
  return repo.listResources(database.db, caller.access, own ?? query.appId, query, tokens);
}

/** The calling app's resource `name`: a 404 for a caller that is no app, and for a name its app has not declared. */
export async function getResource(database: Database, caller: Caller, name: string): Promise<AppApiResource> {
  const appId = appOf(caller);
  const resource = appId === undefined ? undefined : await repo.findResource(database.db, caller.access, appId, name);
  if (!resource) throw errors.notFound('App API resource');
  return resource;
}

const sameDeclaration = (a: AppApiResource, b: AppApiResource) =>
  a.description === b.description && a.path === b.path && a.methods.join() === b.methods.join();

/**
 * Declares (201, appApiResourceRegistered) or replaces (200, appApiResourceUpdated; no event when nothing changed)
 * the app's resource `name`.
 */
export async function putResource(
  database: Database,
  caller: Caller,
  name: string,
  input: AppApiResourceReplace,
): Promise<{ created: boolean; resource: AppApiResource }> {
  const appId = appOf(caller);
  // Names are an app's own: a caller that is no app has none to declare (404, as for a name it does not have).
  if (appId === undefined) throw errors.notFound('App API resource');
  if (!NAME_PATTERN.test(name))
    throw errors.invalidField('params.name', 'must be a lower-case letter, then up to 63 lower-case letters, digits and dashes');
  const { access, actor } = caller;
  return unitOfWork(
    database,
    async (work) => {
      const existing = await repo.findResource(work.db, access, appId, name);
      const at = isoAt(actor.at);
      const resource: AppApiResource = {
        id: existing?.id ?? newRowId(),
        object: 'appApiResource',
        name,
        appId,
        methods: repo.orderedMethods(input.methods),
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
      if (input.description !== undefined) resource.description = input.description;
      if (input.path !== undefined) resource.path = input.path;
      if (existing && sameDeclaration(existing, resource)) return { created: false, resource: existing };
      if (existing) repo.updateResource(work, access, resource);
      else repo.insertResource(work, access, resource);
      recordAudit(work, actor, {
        eventType: existing ? 'appApiResourceUpdated' : 'appApiResourceRegistered',
        description: `App API resource ${name} ${existing ? 'updated' : 'registered'}`,
        context: { appId, name },
        previousAttributes: existing
          ? { description: existing.description ?? null, methods: existing.methods, path: existing.path ?? null }
          : null,
        subject: { object: 'appApiResource', id: resource.id, data: resource },
      });
      return { created: !existing, resource };
    },
    { transaction: true },
  );
}

/** Removes the app's resource `name`: appApiResourceDeleted. */
export async function deleteResource(database: Database, caller: Caller, name: string): Promise<AppApiResource> {
  const appId = appOf(caller);
  const { access, actor } = caller;
  return unitOfWork(
    database,
    async (work) => {
      const resource = appId === undefined ? undefined : await repo.findResource(work.db, access, appId, name);
      if (!resource) throw errors.notFound('App API resource');
      repo.deleteResource(work, access, resource.id);
      recordAudit(work, actor, {
        eventType: 'appApiResourceDeleted',
        description: `App API resource ${name} deleted`,
        context: { appId, name },
        subject: { object: 'appApiResource', id: resource.id, data: resource },
      });
      return resource;
    },
    { transaction: true },
  );
}

/**
 * A new secret for the app's builder to sign with (`pbs_` + 256 random bits, base64url), replacing any earlier one:
 * answered now only, stored sealed (SecretBox), never recorded: appBuilderSecretUpdated.
 */
export async function rotateBuilderSecret(database: Database, box: SecretBox, caller: Caller): Promise<AppBuilderSecret> {
  const appId = appOf(caller);
  if (appId === undefined)
    throw errors.forbidden('Only an app (its app API key made with an appId, or a bearer token minted from it) has a builder secret.');
  const { access, actor } = caller;
  const secret = `pbs_${randomBytes(32).toString('base64url')}`;
  const updatedAt = isoAt(actor.at);
  await unitOfWork(database, async (work) => {
    repo.upsertBuilderSecret(work, access, appId, box.seal(secret), updatedAt);
    recordAudit(work, actor, {
      eventType: 'appBuilderSecretUpdated',
      description: 'App builder secret rotated',
      context: { appId },
    });
  });
  return { object: 'appBuilderSecret', appId, secret, updatedAt };
}
