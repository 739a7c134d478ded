// The messages module's public face (docs/ARCHITECTURE.md: a module): message channels and their messages.
export { default as messageRoutes } from './messages.routes.js';
