import type { ApiPrincipal } from '../../../lib/caller.js';
import type { Me } from './me.schemas.js';

/**
 * The caller as GET /v1/me describes it. Plain literals, absent optional fields undefined (the
 * serializer leaves them out): objects built by spreading are slower for it to read, on every request.
 */
export function describeCaller(principal: ApiPrincipal): Me {
  const { workspaceId } = principal;
  if (principal.kind === 'portalClient')
    return { object: 'me', workspaceId, type: 'client', id: principal.clientId, companyId: principal.companyId };
  if (principal.kind === 'portalInternalUser') return { object: 'me', workspaceId, type: 'internalUser', id: principal.internalUserId };
  const { apiKeyId } = principal;
  switch (principal.kind) {
    case 'workspaceKey':
      return { object: 'me', workspaceId, type: 'workspace', id: apiKeyId, apiKeyId };
    case 'appKey':
    case 'bearer':
      return { object: 'me', workspaceId, type: 'app', id: principal.appId ?? apiKeyId, apiKeyId, appId: principal.appId || undefined };
    case 'internalUserSession':
      return {
        object: 'me',
        workspaceId,
        type: 'internalUser',
        id: principal.internalUserId,
        apiKeyId,
        appId: principal.appId || undefined,
        tokenId: principal.sessionId,
      };
    case 'clientSession':
      return {
        object: 'me',
        workspaceId,
        type: 'client',
        id: principal.clientId,
        apiKeyId,
        appId: principal.appId || undefined,
        companyId: principal.companyId,
        tokenId: principal.sessionId,
      };
  }
}
