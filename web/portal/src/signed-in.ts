import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Person, PortalWorkspace, SignInSession } from './api.js';
import type { Waiting } from './sections.js';

// What the signed-in frame (frame.tsx) gives every page inside it; apart from the frame, so that the sections'
// pages read it without importing the frame that lists them.

/** Who is signed in, and the workspace whose portal this is: every page inside the frame reads them. */
export interface SignedIn {
  session: SignInSession;
  person: Person;
  workspace: PortalWorkspace;
}

/** What the frame gives its pages: the signed-in person, and what waits for them (null until counted). */
interface Framed extends SignedIn {
  waiting: Waiting[] | null;
}

export const FramedContext = createContext<Framed | null>(null);

/** The signed-in person, their workspace and what waits for them (only inside `SignedInFrame`). */
export function useSignedIn(): Framed {
  const framed = useContext(FramedContext);
  if (!framed) throw new Error('useSignedIn outside the signed-in frame');
  return framed;
}
