// Issue 43, point 2: one rule for who acts. A person — an app's session, or signed in to the portal — acts only as its
// own user, read from the caller's actor; keys, bearer tokens and the system name anyone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Principal, assertNamesItself, callerOf, namesItself, ownUserOf } from './caller.js';

const origin = { ip: null, userAgent: null };
const key = { workspaceId: 'w', apiKeyId: 'k', dailyQuota: 10, clockOffsetMs: 0 };
const portal = { workspaceId: 'w', signInSessionId: 's', dailyQuota: 10, clockOffsetMs: 0, appId: null };
const client = { clientId: 'c', companyId: 'co', clientCompanyIds: ['co', 'co2'] };
const user = { internalUserId: 'u', role: 'staff' as const, companyAccessList: null };

const PERSONS: [string, Principal, ReturnType<typeof ownUserOf>][] = [
  [
    'client session',
    { kind: 'clientSession', ...key, appId: 'a', sessionId: 't', ...client },
    { type: 'client', id: 'c', companyId: 'co' },
  ],
  ['client signed in', { kind: 'portalClient', ...portal, ...client }, { type: 'client', id: 'c', companyId: 'co' }],
  [
    'internal user session',
    { kind: 'internalUserSession', ...key, appId: null, sessionId: 't', ...user },
    { type: 'internalUser', id: 'u' },
  ],
  ['internal user signed in', { kind: 'portalInternalUser', ...portal, ...user }, { type: 'internalUser', id: 'u' }],
];
const OTHERS: [string, Principal][] = [
  ['workspace key', { kind: 'workspaceKey', ...key }],
  ['app key', { kind: 'appKey', ...key, appId: 'a' }],
  ['bearer token', { kind: 'bearer', ...key, appId: 'a', bearerTokenId: 'b' }],
  ['system', { kind: 'system', workspaceId: 'w' }],
];

describe('who acts: one rule (lib/caller.ts ownUserOf, assertNamesItself)', () => {
  test('a person signed in to the portal is its own user exactly as an app session of the same person', () => {
    for (const [name, principal, own] of PERSONS) {
      const caller = callerOf(principal, 0, origin);
      assert.deepEqual(ownUserOf(caller), own, name);
      assert.equal(namesItself(caller, undefined), true, name);
      assert.equal(namesItself(caller, own?.id), true, name);
      assert.equal(namesItself(caller, 'someone-else'), false, name);
      assert.doesNotThrow(() => assertNamesItself(caller, 'body.senderId', own?.id), name);
      assert.throws(
        () => assertNamesItself(caller, 'body.senderId', 'someone-else'),
        {
          statusCode: 403,
          code: 'forbidden',
          message: 'body.senderId must be the caller’s own user (or left out): a person acts only as itself.',
        },
        name,
      );
    }
  });

  test('keys, bearer tokens and the system have no user of their own: they name anyone', () => {
    for (const [name, principal] of OTHERS) {
      const caller = callerOf(principal, 0, origin);
      assert.equal(ownUserOf(caller), undefined, name);
      assert.doesNotThrow(() => assertNamesItself(caller, 'body.senderId', 'anyone'), name);
    }
  });
});
