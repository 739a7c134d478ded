// files (docs/ARCHITECTURE.md, "A module"): its public face: file channels, their files, folders and
// links, the signed URLs their content goes through, and the sweep keeping the store to what rows name.
export { default as fileRoutes, fileContentRoutes } from './files.routes.js';
export type { FileSettings } from './files.service.js';
export { FileContentSweep } from './content-sweep.js';
export { type FileStore, LocalFileStore } from './file-store.js';
export { S3FileStore } from './s3-file-store.js';
export { UrlSigner } from './signed-urls.js';
