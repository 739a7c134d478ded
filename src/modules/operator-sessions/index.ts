// The operator-sessions module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { CONSOLE_HEADER, OperatorSessions, SESSION_COOKIE, adminTokenMatcher } from './operator-session.js';
export { operatorSessionRoutes } from './operator-session.routes.js';
