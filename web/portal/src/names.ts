// Who the people and companies named by the API's objects are (a message's sender, a task's assignee, the client an
// invoice bills): names read through /v1 where the signed-in person may read them (staff: the clients and companies
// they see, and the staff; a client: itself and its companies), each looked up once per person signed in.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Person, ok, v1 } from './api.js';

/**
 * What a name is looked up as: a client, a company, an internal user, or a sender (a client or an internal user:
 * a message does not say which).
 */
type NameKind = 'client' | 'company' | 'internalUser' | 'sender';
export type NameWanted = [NameKind, string];

/** Names found (null: the person may not read it, or it is gone), for one signed-in person at a time. */
const names = new Map<string, string | null>();
const asking = new Set<string>();
const listeners = new Set<() => void>();
let namesOwner = '';

const nameKey = ([kind, id]: NameWanted) => `${kind}:${id}`;

/** A person's name as the API holds it, else their e-mail address. */
const fullName = (p: { givenName: string; familyName: string; email?: string }) => `${p.givenName} ${p.familyName}`.trim() || p.email || '';

/** A name the person may not read (404; 403) is null; any other failure is thrown. */
async function unlessHidden(read: () => Promise<string>): Promise<string | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return null;
    throw error;
  }
}

async function lookUp([kind, id]: NameWanted): Promise<string | null> {
  const params = { params: { path: { id } } };
  const client = () => unlessHidden(async () => fullName(await ok(v1.GET('/v1/clients/{id}', params))));
  const internalUser = () => unlessHidden(async () => fullName(await ok(v1.GET('/v1/internal-users/{id}', params))));
  if (kind === 'company') return unlessHidden(async () => (await ok(v1.GET('/v1/companies/{id}', params))).name);
  if (kind === 'client') return client();
  if (kind === 'internalUser') return internalUser();
  return (await client()) ?? internalUser();
}

/**
 * The names of `wanted`, looked up once each (undefined while asked, null when the person may not read them);
 * the component renders again as they arrive.
 */
export function useNames(person: Person, wanted: NameWanted[]): (kind: NameKind, id: string) => string | null | undefined {
  const owner = `${person.type}:${person.id}`;
  if (namesOwner !== owner) {
    // Another person signed in in this tab: what the last one could read is not theirs to see.
    names.clear();
    namesOwner = owner;
  }
  const [, setRound] = useState(0);
  useEffect(() => {
    const rerender = () => setRound((n) => n + 1);
    listeners.add(rerender);
    return () => void listeners.delete(rerender);
  }, []);
  const missing = wanted.filter((w) => !names.has(nameKey(w)) && !asking.has(nameKey(w)));
  const missingKey = [...new Set(missing.map(nameKey))].join(' ');
  useEffect(() => {
    for (const w of missing) {
      const key = nameKey(w);
      if (asking.has(key) || names.has(key)) continue;
      asking.add(key);
      void lookUp(w)
        .catch(() => null) // unreachable now: shown without the name rather than asked again and again
        .then((name) => {
          asking.delete(key);
          if (namesOwner === owner) names.set(key, name);
          for (const listener of listeners) listener();
        });
    }
  }, [missingKey]);
  return (kind, id) => names.get(nameKey([kind, id]));
}

export type Names = ReturnType<typeof useNames>;

/** The party an object is for (an invoice, a form, a contract: a client in a company, or a company as a whole). */
export interface Party {
  clientId?: string | null;
  companyId?: string | null;
}

/** The names a party needs: its client's, else its company's. */
export const partyWanted = (party: Party): NameWanted[] =>
  party.clientId ? [['client', party.clientId]] : party.companyId ? [['company', party.companyId]] : [];

/** Whom an object is for, by name ("Ada Lovelace", "Northwind (the company)"); "…" while asked. */
export function partyName(party: Party, name: Names): string {
  const [kind, id] = partyWanted(party)[0] ?? [];
  if (!kind || !id) return 'No one';
  const found = name(kind, id);
  if (found === undefined) return '…';
  if (found === null) return kind === 'client' ? 'A client no longer listed' : 'A company no longer listed';
  return kind === 'company' ? `${found} (the company)` : found;
}
