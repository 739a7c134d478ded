import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Person, PortalWorkspace, SignInSession } from './api.js';
import type { Waiting } from './sections.js';

// What the signed-in frame (frame.tsx) gives every page inside it; apart from the frame, so that the sections'
// pages read it without importing the frame that lists them.

/**
 * What an internal user signed in may see and do, as the API decides it (`GET /v1/internal-users/{id}`): its role,
 * and the companies it is limited to (null: every company, and their clients).
 */
export interface StaffAccess {
  role: string;
  companyIds: readonly string[] | null;
}

/** Who is signed in, and the workspace whose portal this is: every page inside the frame reads them. */
export interface SignedIn {
  session: SignInSession;
  person: Person;
  workspace: PortalWorkspace;
  /** An internal user's access; null for a client. */
  staff: StaffAccess | null;
}

/**
 * What the frame gives its pages: the signed-in person, what waits for them (null until counted), the sections whose
 * count failed (their labels), and `recount` to count again.
 */
interface Framed extends SignedIn {
  waiting: Waiting[] | null;
  uncounted: string[];
  recount: () => void;
}

export const FramedContext = createContext<Framed | null>(null);

/** The signed-in person, their workspace and what waits for them (only inside `SignedInFrame`). */
export function useSignedIn(): Framed {
  const framed = useContext(FramedContext);
  if (!framed) throw new Error('useSignedIn outside the signed-in frame');
  return framed;
}
