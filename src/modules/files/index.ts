// The files module's public face (docs/ARCHITECTURE.md: a module): file channels, their files, folders and
// links, and the signed URLs their content goes through.
export { default as fileRoutes, fileContentRoutes } from './files.routes.js';
export { type FileSettings, removeOrphanContent } from './files.service.js';
export { LocalFileStore } from './file-store.js';
export { UrlSigner } from './signed-urls.js';
