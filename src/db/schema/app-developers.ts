/** What app developers use (modules/surfaces/qa, modules/resources/app-api): QA principals, app API resources, app builder secrets. */

export const QA_PRINCIPAL_KINDS = ['client', 'internalUser'] as const;
export type QaPrincipalKind = (typeof QA_PRINCIPAL_KINDS)[number];

/** A client or internal user marked for testing: `id` is the person's id; exactly one of client_id and internal_user_id is set. */
interface QaPrincipalsTable {
  id: string;
  workspace_id: string;
  kind: QaPrincipalKind;
  client_id: string | null;
  internal_user_id: string | null;
  created_at: string;
}

export const APP_API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A resource an app's API exposes, as the app declared it; unique by (workspace, app, name). */
export interface AppApiResourcesTable {
  id: string;
  workspace_id: string;
  app_id: string;
  name: string;
  description: string | null;
  /** JSON array of APP_API_METHODS, in that order. */
  methods: string;
  path: string | null;
  created_at: string;
  updated_at: string;
}

/** The secret an app's builder signs with, sealed (SecretBox, server secret "app-builder"): one per workspace and app. */
interface AppBuilderSecretsTable {
  workspace_id: string;
  app_id: string;
  sealed_secret: string;
  updated_at: string;
}

export interface AppDevelopersTables {
  qa_principals: QaPrincipalsTable;
  app_api_resources: AppApiResourcesTable;
  app_builder_secrets: AppBuilderSecretsTable;
}
