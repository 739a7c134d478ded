// operator-sessions (docs/ARCHITECTURE.md, "A module"): its public face.
export { CONSOLE_HEADER, OperatorSessions, SESSION_COOKIE, adminTokenMatcher } from './operator-session.js';
export { operatorSessionRoutes } from './operator-session.routes.js';
