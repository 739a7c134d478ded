export { CONSOLE_HEADER, OperatorSessions, SESSION_COOKIE, adminTokenMatcher, cookieOf } from './operator-session.js';
export { operatorSessionRoutes } from './operator-session.routes.js';
