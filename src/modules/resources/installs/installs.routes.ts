import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { APPS_ONLY, type RoutePolicy } from '../../../lib/policy.js';
import { ADMIN_WRITE_ERRORS, adminDoc, Page, READ_ERRORS, WorkspaceParams, WRITE_ERRORS } from '../../../lib/schemas.js';
import {
  CreatedInstall,
  Install,
  InstallAdminParams,
  InstallCreate,
  InstallListQuery,
  InstallParams,
  PublishedInstall,
} from './installs.schemas.js';
import * as service from './installs.service.js';
import { AppConnection, AppConnectionCreate, AppConnectionListQuery } from './connections.schemas.js';
import * as connections from './connections.service.js';
import { NotificationSettings, NotificationSettingsCreate, NotificationSettingsPatch } from './notification-settings.schemas.js';
import * as settings from './notification-settings.service.js';

/** Clients see the published installs of their portal (a draft is a 404 to them). */
const SEEN_BY_CLIENTS: RoutePolicy = { clientSession: 'read' };
const tags = ['installs'];

export default async function installRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/installs',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'listAppInstalls',
        summary: 'List installs, in sidebar order (sort)',
        description:
          'In sidebar order (`sort` ascending), paged like every list; every workspace has the core modules. A client session sees ' +
          'published installs only.',
        querystring: InstallListQuery,
        response: { 200: Page(Install), ...READ_ERRORS },
      },
    },
    async (request) => service.listInstalls(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/installs/:installId',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'retrieveAppInstall',
        summary: 'Retrieve an install',
        description: 'A draft install is a 404 to a client session.',
        params: InstallParams,
        response: { 200: Install, ...READ_ERRORS },
      },
    },
    async (request) => service.getInstall(database, request.caller, request.params.installId),
  );

  app.get(
    '/installs/:installId/connections',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'listAppConnections',
        summary: "List a manual install's app connections (a client session: those it sees)",
        description:
          'A manual install’s connections (another type of install is a 400): an embed code or an http(s) link for a company or for ' +
          'clients of one company. Filters: `clientId` (what that client sees: its own, its group’s, its company’s) and `companyId`. ' +
          'A client session lists what it sees.',
        params: InstallParams,
        querystring: AppConnectionListQuery,
        response: { 200: Page(AppConnection), ...READ_ERRORS },
      },
    },
    async (request) => connections.listConnections(database, request.caller, request.params.installId, request.query, pageTokens),
  );

  app.post(
    '/installs/:installId/connections',
    {
      config: { policy: { ...SEEN_BY_CLIENTS, portal: false } },
      schema: {
        tags,
        operationId: 'createAppConnection',
        summary: 'Connect an embed or a link of a manual install to a company or to clients of one company',
        description:
          'For a manual install (another type is a 400): `companyId`, or `clientIds` (at most 100, clients of one company; without ' +
          '`companyId` a client with several companies is a 400 asking to choose). Unknown clients or company are 400s naming the ' +
          'field. No audit event (the specification has none for it). A client session gets a 403.',
        params: InstallParams,
        body: AppConnectionCreate,
        response: { 200: AppConnection, ...WRITE_ERRORS },
      },
    },
    async (request) => connections.createConnection(database, request.caller, request.params.installId, request.body),
  );

  const settingsPath = '/installs/:installId/notification-settings';
  const appsOwn =
    'An app key (its bearer tokens and sessions too) may change only the settings of its own app’s installs (403); a workspace key any.';
  app.get(
    settingsPath,
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'retrieveNotificationSettings',
        summary: 'The notification settings an install declares',
        description:
          'The settings the install’s app declared, each with the surfaces it offers and its `default`. Client sessions get a 404.',
        params: InstallParams,
        response: { 200: NotificationSettings, ...READ_ERRORS },
      },
    },
    async (request) => settings.getNotificationSettings(database, request.caller, request.params.installId),
  );

  app.post(
    settingsPath,
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'createNotificationSettings',
        summary: 'Declare an install’s notification settings (409 when already declared)',
        description: appsOwn,
        params: InstallParams,
        body: NotificationSettingsCreate,
        response: { 200: NotificationSettings, ...WRITE_ERRORS },
      },
    },
    async (request) => settings.declareNotificationSettings(database, request.caller, request.params.installId, request.body),
  );

  app.patch(
    settingsPath,
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'updateNotificationSettings',
        summary: 'Change an install’s notification settings with deltas',
        description: `${appsOwn} A change that races another is a 409: read and retry.`,
        params: InstallParams,
        body: NotificationSettingsPatch,
        response: { 200: NotificationSettings, ...WRITE_ERRORS },
      },
    },
    async (request) => settings.changeNotificationSettings(database, request.caller, request.params.installId, request.body),
  );
}

/** Installing and publishing on the admin surface (as `portal installs create|publish`). */
export async function installAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.post(
    '/workspaces/:workspaceId/installs',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateInstall',
        summary: 'Install an app, an embed, a link or a manual app (at the end of the sidebar)',
        description:
          '`{type, name, appId?, draft?, url?}`: `appId` for custom and marketplace installs only; only a custom install may be a draft ' +
          '(clients do not see it until it is published); `url` (answered as `embedLink`) for custom, marketplace and link installs: ' +
          'the app’s page, which the portal frames with the signed-in person’s session token, or the link’s destination. As ' +
          '`portal installs create`.',
        params: WorkspaceParams,
        body: InstallCreate,
        response: { 200: CreatedInstall, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createInstall(database, request.caller, request.body),
  );

  app.post(
    '/workspaces/:workspaceId/installs/:installId/publish',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminPublishInstall',
        summary: 'Publish a draft install (clients see it from then on)',
        description: 'A draft install becomes visible to client sessions. As `portal installs publish`.',
        params: InstallAdminParams,
        response: { 200: PublishedInstall, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.publishInstall(database, request.caller, request.params.installId),
  );
}
