/**
 * Row types of every table, composed into one `DB` type for Kysely.
 * Portable column types: text ids, ISO-8601 text timestamps (sort as strings), 0/1 integer booleans,
 * JSON as text. One query then serves SQLite and PostgreSQL alike.
 */
import type { PlatformTables } from './schema/platform.js';
import type { CredentialsTables } from './schema/credentials.js';
import type { DirectoryTables } from './schema/directory.js';
import type { AuditTables } from './schema/audit.js';
import type { BillingTables } from './schema/billing.js';
import type { AppsTables } from './schema/apps.js';
import type { MessagesTables } from './schema/messages.js';
import type { TasksTables } from './schema/tasks.js';
import type { NotesTables } from './schema/notes.js';
import type { FilesTables } from './schema/files.js';
import type { FormsTables } from './schema/forms.js';
import type { ContractsTables } from './schema/contracts.js';
import type { SignInTables } from './schema/sign-in.js';
import type { AppDevelopersTables } from './schema/app-developers.js';

export * from './schema/platform.js';
export * from './schema/credentials.js';
export * from './schema/directory.js';
export * from './schema/audit.js';
export * from './schema/billing.js';
export * from './schema/apps.js';
export * from './schema/messages.js';
export * from './schema/tasks.js';
export * from './schema/notes.js';
export * from './schema/files.js';
export * from './schema/forms.js';
export * from './schema/contracts.js';
export * from './schema/sign-in.js';
export * from './schema/app-developers.js';

/** Every table, for Kysely: one interface per table family under schema/. */
export interface DB
  extends PlatformTables,
    CredentialsTables,
    DirectoryTables,
    AuditTables,
    BillingTables,
    AppsTables,
    MessagesTables,
    TasksTables,
    NotesTables,
    FilesTables,
    FormsTables,
    ContractsTables,
    SignInTables,
    AppDevelopersTables {}
