import type { ApiPrincipal } from '../../lib/caller.js';
import type { Me } from './me.schemas.js';

/** The caller as GET /v1/me describes it. */
export function describeCaller(principal: ApiPrincipal): Me {
  const common = { object: 'me' as const, workspaceId: principal.workspaceId, apiKeyId: principal.apiKeyId };
  switch (principal.kind) {
    case 'workspaceKey':
      return { ...common, type: 'workspace', id: principal.apiKeyId };
    case 'appKey':
    case 'bearer':
      return { ...common, type: 'app', id: principal.appId ?? principal.apiKeyId, ...(principal.appId ? { appId: principal.appId } : {}) };
    case 'internalUserSession':
      return {
        ...common,
        type: 'internalUser',
        id: principal.internalUserId,
        ...(principal.appId ? { appId: principal.appId } : {}),
        tokenId: principal.sessionId,
      };
    case 'clientSession':
      return {
        ...common,
        type: 'client',
        id: principal.clientId,
        ...(principal.appId ? { appId: principal.appId } : {}),
        companyId: principal.companyId,
        tokenId: principal.sessionId,
      };
  }
}
