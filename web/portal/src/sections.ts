import type { FunctionComponent } from 'preact';
import type { SignedIn } from './signed-in.js';
import { AppsPage } from './pages/apps.js';
import { ContractsPage, contractsWaiting } from './pages/contracts.js';
import { FilesPage } from './pages/files.js';
import { FormsPage, formsWaiting } from './pages/forms.js';
import { NotificationsPage, notificationsWaiting } from './pages/notifications.js';
import { TasksPage, tasksWaiting } from './pages/tasks.js';
import { BillingPage, billingWaiting } from './pages/billing.js';
import { messagesWaiting } from './messaging.js';
import { MessagesPage } from './pages/messages.js';
import { TeamPage } from './staff/team.js';
import { ClientsPage } from './staff/clients.js';
import { CompaniesPage } from './staff/companies.js';

/** What waits for the signed-in person in a section: a count, and the same in words ("2 open invoices"). */
export interface Waiting {
  section: string;
  count: number;
  says: string;
}

/**
 * A section of the signed-in portal (messages, files, billing…): a link in the navigation, the page of every path
 * under `path` (`/billing`, `/billing/invoices/…`: the page reads the rest), and optionally what waits there for the
 * person, counted through the API for the navigation's badge and the home page.
 */
export interface Section {
  path: string;
  label: string;
  Page: FunctionComponent<{ path: string }>;
  waiting?: (signedIn: SignedIn) => Promise<Waiting>;
  /** Who sees it in the navigation: everyone signed in (absent), internal users only, or only admins among them. */
  audience?: 'staff' | 'admins';
}

/** The sections the signed-in person sees, in order (a section for staff is no client's; one for admins, no staff's). */
export function sectionsFor(signedIn: Pick<SignedIn, 'staff'>): Section[] {
  return SECTIONS.filter(
    (section) =>
      section.audience === undefined || (signedIn.staff !== null && (section.audience === 'staff' || signedIn.staff.role === 'admin')),
  );
}

/** The sections, in the navigation's order. */
export const SECTIONS: Section[] = [
  { path: '/clients', label: 'Clients', Page: ClientsPage, audience: 'staff' },
  { path: '/companies', label: 'Companies', Page: CompaniesPage, audience: 'staff' },
  { path: '/messages', label: 'Messages', Page: MessagesPage, waiting: messagesWaiting },
  { path: '/files', label: 'Files', Page: FilesPage },
  { path: '/billing', label: 'Billing', Page: BillingPage, waiting: billingWaiting },
  { path: '/tasks', label: 'Tasks', Page: TasksPage, waiting: tasksWaiting },
  { path: '/forms', label: 'Forms', Page: FormsPage, waiting: formsWaiting },
  { path: '/contracts', label: 'Contracts', Page: ContractsPage, waiting: contractsWaiting },
  { path: '/apps', label: 'Apps', Page: AppsPage },
  { path: '/notifications', label: 'Notifications', Page: NotificationsPage, waiting: notificationsWaiting },
  { path: '/team', label: 'Team', Page: TeamPage, audience: 'admins' },
];
