// messages (docs/ARCHITECTURE.md, "A module"): its public face: message channels and their messages.
export { default as messageRoutes } from './messages.routes.js';
