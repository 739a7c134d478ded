import type { Database, DbHandle } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Access, Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { ApiError, errors, orNotFound } from '../../../lib/errors.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { newRowId } from '../../../lib/row-id.js';
import { newSecretToken } from '../../../lib/secret-token.js';
import type { CustomFieldValues } from '../../../lib/schemas.js';
import { blankActorPersonalData, recordAudit } from '../../../audit/index.js';
import { existingCompanyIds, findCompany } from './companies.repository.js';
import { createPlaceholderCompany } from './companies.service.js';
import { queueEmails } from '../email-outbox/index.js';
import { checkCustomFields, loadCustomFieldRules, mergeCustomFields, normalizeCustomFields } from '../custom-fields/index.js';
import * as repo from './clients.repository.js';
import type { Client, ClientCreate, ClientReplace, ClientUpdate, CreationMethod } from './clients.schemas.js';

const fullName = (givenName: string, familyName: string) => `${givenName} ${familyName}`.trim();
const noSuchCompany = () => errors.invalidField('body.companyId', 'is not a company of this workspace');
/** A placeholder company would lie outside a limited user's companies: the client would vanish from its view. */
const companyRequired = () => errors.invalidField('body.companyId', 'is required: you may only add clients to your companies');

async function requireCompany(db: DbHandle, access: Access, companyId: string) {
  if (!(await findCompany(db, access, companyId))) throw noSuchCompany();
}

export interface CreateClientOptions {
  sendInvite?: boolean;
  /** Base of invite links. */
  portalUrl: string;
  creationMethod?: CreationMethod;
}

/**
 * Creates a client (in a new placeholder company when none is named), with its audit entries: checks
 * first, then every write in one batch. The foreign key guards a company deleted in between.
 */
export async function createClient(database: Database, caller: Caller, input: ClientCreate, options: CreateClientOptions): Promise<Client> {
  const { access, actor } = caller;
  const fields = input.customFields
    ? mergeCustomFields({}, await normalizeCustomFields(database.db, access, 'client', input.customFields))
    : {};
  if (input.companyId) await requireCompany(database.db, access, input.companyId);
  else if (access.companyIds) throw companyRequired();
  const invite = options.sendInvite ? newInvite(actor.at) : undefined;
  return unitOfWork(database, async (work) => {
    const client = addClient(work, caller, input, fields, {
      creationMethod: options.creationMethod ?? 'internalUser',
      invite: invite ?? null,
    });
    return invite ? sendInvite(work, caller, client, invite, options.portalUrl) : client;
  });
}

/** How long an invite link works; sending the invite again makes a new link (the old one stops working). */
const INVITE_LIFETIME_MS = 7 * 24 * 3600_000;

interface Invite {
  token: string;
  hash: string;
  expiresAt: string;
}

const newInvite = (now: number): Invite => ({ ...newSecretToken(), expiresAt: isoAt(now + INVITE_LIFETIME_MS) });

/**
 * The invite's e-mail (through the outbox) and clientInvited, in the unit that stores its hash; the client with its
 * one-time `inviteUrl`. The token rides in the URL's fragment, which browsers never send to a server or a Referer.
 */
function sendInvite(work: UnitOfWork, caller: Caller, client: Client, invite: Invite, portalUrl: string): Client {
  const inviteUrl = `${portalUrl}/portal/${caller.access.workspaceId}/invite#${invite.token}`;
  queueEmails(
    work,
    caller.access,
    [
      {
        notificationId: null,
        to: client.email,
        subject: 'You are invited to your client portal',
        text: `Hello ${client.givenName},\n\nYou are invited to your client portal. Accept the invite here (the link works until ${invite.expiresAt}):\n\n${inviteUrl}\n`,
      },
    ],
    isoAt(caller.actor.at),
  );
  recordAudit(work, caller.actor, {
    eventType: 'clientInvited',
    description: `Client ${client.email} invited`,
    context: { clientId: client.id },
    subject: clientSubject(client),
  });
  return { ...client, inviteUrl };
}

/**
 * Sends a client's invite again (or for the first time): a new link valid for 7 days, the old one refused from now on.
 * A client that has already signed in (`active`) needs none: 409.
 */
export async function resendInvite(database: Database, caller: Caller, id: string, portalUrl: string): Promise<Client> {
  const invite = newInvite(caller.actor.at);
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findClient(work.db, caller.access, id), 'Client');
      if (previous.status === 'active') throw errors.conflict('This client has already accepted an invite and signs in.');
      const client: Client = { ...previous, status: 'invited', updatedAt: isoAt(caller.actor.at) };
      repo.setInvite(work, caller.access, client, invite);
      return sendInvite(work, caller, client, invite, portalUrl);
    },
    { transaction: true },
  );
}

/**
 * Adds a checked client to the unit of work, in a new placeholder company when none is named, with its
 * clientCreated entry (and the placeholder's companyCreated): what createClient and commitClients write.
 */
function addClient(
  work: UnitOfWork,
  caller: Caller,
  input: ClientCreate,
  fields: CustomFieldValues,
  how: { creationMethod: CreationMethod; invite: Invite | null },
): Client {
  const { access, actor } = caller;
  const id = newRowId();
  const at = isoAt(actor.at);
  const email = input.email.trim();
  const givenName = input.givenName.trim();
  const familyName = input.familyName.trim();
  const companyId = input.companyId ?? createPlaceholderCompany(work, caller, fullName(givenName, familyName));
  const invitedBy = how.invite && actor.actorType === 'internalUser' ? actor.actorId : null;
  const client: Client = {
    id,
    object: 'client',
    createdAt: at,
    updatedAt: at,
    givenName,
    familyName,
    email,
    companyId,
    companyIds: [companyId],
    customFields: fields,
    fallbackColor: fallbackColorFor(id),
    status: how.invite ? 'invited' : 'notInvited',
    creationMethod: how.creationMethod,
    firstLoginDate: null,
    lastLoginDate: null,
    ...(invitedBy ? { invitedBy } : {}),
  };
  repo.insertClient(work, access, client, how.invite);
  recordAudit(work, actor, {
    eventType: 'clientCreated',
    description: `Client ${email} created`,
    context: { clientId: id, companyId },
    subject: clientSubject(client),
  });
  return client;
}

/** A client that passed createClient's checks (prepareClients), ready for commitClients. */
export interface CheckedClient {
  input: ClientCreate;
  /** The normalized custom field values. */
  fields: CustomFieldValues;
}

/**
 * What prepareClients found for one input: ready; its email already taken, in the workspace or earlier
 * in the batch (where createClient answers a 409, an import skips the row); or refused (its API error).
 */
export type PreparedClient = { ready: CheckedClient } | { exists: true } | { error: ApiError };

/**
 * createClient's checks for many clients at once (an import): each one's custom fields (their rules
 * loaded once), the companies named (one query), and the emails already taken (one query; an email given twice is taken from its
 * second time on). A refused input is its API error; anything else (storage down) is thrown.
 */
export async function prepareClients(database: Database, caller: Caller, inputs: readonly ClientCreate[]): Promise<PreparedClient[]> {
  const { access } = caller;
  const companies = await existingCompanyIds(database.db, access, [...new Set(inputs.flatMap((input) => input.companyId ?? []))]);
  const taken = await repo.takenEmailKeys(database.db, access, [...new Set(inputs.map((input) => emailKey(input.email)))]);
  const rules = await loadCustomFieldRules(
    database.db,
    access,
    'client',
    inputs.flatMap((input) => (input.customFields ? [input.customFields] : [])),
  );
  const prepared: PreparedClient[] = [];
  for (const input of inputs) {
    try {
      const fields = input.customFields ? mergeCustomFields({}, checkCustomFields(rules, 'client', input.customFields)) : {};
      if (input.companyId) {
        if (!companies.has(input.companyId)) throw noSuchCompany();
      } else if (access.companyIds) throw companyRequired();
      const key = emailKey(input.email);
      if (taken.has(key)) prepared.push({ exists: true });
      else {
        taken.add(key);
        prepared.push({ ready: { input, fields } });
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      prepared.push({ error });
    }
  }
  return prepared;
}

/**
 * Creates checked clients (prepareClients) in one unit of work, with the entries createClient writes:
 * all or none. A client whose email was taken, or a company deleted, since the checks fails the whole
 * unit with its API error: prepare again and retry.
 */
export function commitClients(database: Database, caller: Caller, clients: readonly CheckedClient[], creationMethod: CreationMethod) {
  return unitOfWork(database, async (work) =>
    clients.map(({ input, fields }) => addClient(work, caller, input, fields, { creationMethod, invite: null })),
  );
}

const emailKey = (email: string) => email.trim().toLowerCase();

/** A client as the subject of its audit entries (and the data of their webhooks). */
const clientSubject = (client: Client) => ({ object: 'client', id: client.id, data: client, companyId: client.companyId });

export async function getClient(database: Database, caller: Caller, id: string): Promise<Client> {
  return orNotFound(await repo.findClient(database.db, caller.access, id), 'Client');
}

export const listClients = listAs(repo.listClients);

interface NextState {
  givenName: string;
  familyName: string;
  /** primary first */
  companyIds: string[];
  customFields: CustomFieldValues;
}

/** Writes what differs between the client and its next state, with clientUpdated / clientCustomFieldsUpdated entries. */
function applyChanges(work: UnitOfWork, caller: Caller, previous: Client, next: NextState): Client {
  const changed: Record<string, unknown> = {};
  if (next.givenName !== previous.givenName) changed.givenName = previous.givenName;
  if (next.familyName !== previous.familyName) changed.familyName = previous.familyName;
  if (next.companyIds.join() !== previous.companyIds.join()) {
    changed.companyId = previous.companyId;
    changed.companyIds = previous.companyIds;
  }
  const fieldsChanged = JSON.stringify(next.customFields) !== JSON.stringify(previous.customFields);
  if (Object.keys(changed).length === 0 && !fieldsChanged) return previous;

  const client: Client = { ...previous, ...next, companyId: next.companyIds[0], updatedAt: isoAt(caller.actor.at) };
  repo.updateClient(work, caller.access, client, previous);
  recordClientUpdated(work, caller.actor, previous, client, changed);
  if (fieldsChanged) {
    recordAudit(work, caller.actor, {
      eventType: 'clientCustomFieldsUpdated',
      description: `Custom fields of client ${previous.email} updated`,
      context: { clientId: previous.id },
      previousAttributes: { customFields: previous.customFields },
      subject: clientSubject(client),
    });
  }
  return client;
}

/** PATCH: merges the given fields; `companyId` moves the client (replacing its primary company). */
export async function updateClient(database: Database, caller: Caller, id: string, input: ClientUpdate): Promise<Client> {
  const { access } = caller;
  const changes = input.customFields ? await normalizeCustomFields(database.db, access, 'client', input.customFields) : undefined;
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findClient(work.db, access, id), 'Client');
      work.onCommit(() => credentialsChanged(database)); // the client's sessions carry its companies
      let companyIds = previous.companyIds;
      if (input.companyId !== undefined && input.companyId !== previous.companyId) {
        await requireCompany(work.db, access, input.companyId);
        companyIds = [input.companyId, ...companyIds.filter((c) => c !== previous.companyId && c !== input.companyId)];
      }
      return applyChanges(work, caller, previous, {
        givenName: input.givenName?.trim() ?? previous.givenName,
        familyName: input.familyName?.trim() ?? previous.familyName,
        companyIds,
        customFields: changes ? mergeCustomFields(previous.customFields, changes) : previous.customFields,
      });
    },
    { transaction: true },
  );
}

/**
 * PUT: replaces every writable field. Without `companyId` the client is left in a placeholder company
 * of its own: the one it already has when that is its only company, else a new one.
 */
export async function replaceClient(database: Database, caller: Caller, id: string, input: ClientReplace): Promise<Client> {
  const { access } = caller;
  const fields = input.customFields
    ? mergeCustomFields({}, await normalizeCustomFields(database.db, access, 'client', input.customFields))
    : {};
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findClient(work.db, access, id), 'Client');
      work.onCommit(() => credentialsChanged(database)); // the client's sessions carry its companies
      const givenName = input.givenName.trim();
      const familyName = input.familyName.trim();
      let companyId = input.companyId;
      if (companyId !== undefined) {
        if (companyId !== previous.companyId) await requireCompany(work.db, access, companyId);
      } else if (access.companyIds) {
        throw companyRequired();
      } else {
        const own = previous.companyIds.length === 1 ? await findCompany(work.db, access, previous.companyId) : undefined;
        companyId = own?.isPlaceholder ? own.id : createPlaceholderCompany(work, caller, fullName(givenName, familyName));
      }
      return applyChanges(work, caller, previous, { givenName, familyName, companyIds: [companyId], customFields: fields });
    },
    { transaction: true },
  );
}

export async function deleteClient(database: Database, caller: Caller, id: string) {
  await unitOfWork(
    database,
    async (work) => {
      const client = orNotFound(await repo.findClient(work.db, caller.access, id), 'Client');
      // What goes with a client (its channels, tasks, notes, forms, contracts) is filed under each of its companies:
      // a caller limited to some companies may not delete what it has in the others.
      const seen = caller.access.companyIds;
      if (seen && client.companyIds.some((companyId) => !seen.includes(companyId)))
        throw errors.forbidden(
          'This client also belongs to a company you cannot see: deleting it would delete what it has there; nothing was deleted.',
        );
      repo.deleteClient(work, caller.access, id);
      work.onCommit(() => credentialsChanged(database)); // the client's sessions end
      recordAudit(work, caller.actor, {
        eventType: 'clientDeleted',
        description: `Client ${client.email} deleted`,
        context: { clientId: id, email: client.email },
        subject: clientSubject(client),
      });
      // The client's personal data goes with it: the ip and User-Agent of what it did.
      blankActorPersonalData(work, caller.access, client.id);
    },
    { transaction: true },
  );
  return { id, object: 'client', deleted: true as const };
}

/** What a person changes of its own profile (the portal's account page): the fields given, the others kept. */
export interface OwnProfileChanges {
  givenName?: string;
  familyName?: string;
  /** null: no picture */
  avatarImageUrl?: string | null;
  /** whether notifications' e-mails go to it */
  emailNotifications?: boolean;
}

/**
 * A client's own profile, changed in the caller's unit of work (sign-in's profile routes keep the picture's bytes in
 * the same one; it must be a transaction): the client's row locked, then its names and picture written with
 * clientUpdated, as a PATCH records a change of the client (apps hear of it by its webhook), and whether notifications
 * are e-mailed to it, which is no field of the client as the API shows it (no entry, `updatedAt` kept).
 */
export async function changeOwnClientProfile(
  work: UnitOfWork,
  caller: Caller,
  id: string,
  changes: OwnProfileChanges,
): Promise<{ client: Client; emailNotifications: boolean }> {
  const found = orNotFound(await repo.findClientProfile(work.db, caller.access, id, work.database.dialect), 'Client');
  const previous = found.client;
  const next = {
    givenName: changes.givenName?.trim() ?? previous.givenName,
    familyName: changes.familyName?.trim() ?? previous.familyName,
    avatarImageUrl: changes.avatarImageUrl === undefined ? previous.avatarImageUrl : (changes.avatarImageUrl ?? undefined),
  };
  const emailNotifications = changes.emailNotifications ?? found.emailNotifications;
  const changed: Record<string, unknown> = {};
  for (const field of ['givenName', 'familyName', 'avatarImageUrl'] as const)
    if (next[field] !== previous[field]) changed[field] = previous[field] ?? null;
  if (Object.keys(changed).length === 0 && emailNotifications === found.emailNotifications) return found;

  const client: Client = { ...previous, ...next, updatedAt: Object.keys(changed).length > 0 ? isoAt(caller.actor.at) : previous.updatedAt };
  repo.updateClientProfile(work, caller.access, client, emailNotifications);
  recordClientUpdated(work, caller.actor, previous, client, changed);
  return { client, emailNotifications };
}

/** clientUpdated with the fields' previous values, when any changed (an update through the API, or the person's own profile). */
function recordClientUpdated(
  work: UnitOfWork,
  actor: Caller['actor'],
  previous: Client,
  client: Client,
  changed: Record<string, unknown>,
): void {
  if (Object.keys(changed).length === 0) return;
  recordAudit(work, actor, {
    eventType: 'clientUpdated',
    description: `Client ${previous.email} updated`,
    context: { clientId: previous.id },
    previousAttributes: changed,
    subject: clientSubject(client),
  });
}
