import { frontEnd } from '../kit/vite.js';

/**
 * The portal's pages (sign-in, the e-mailed links, the account): built into dist/portal and served by the server
 * at /portal/{workspaceId}/… with their files at /portal/assets/ (src/plugins/portal-pages.ts).
 * `npx vite web/portal`: the pages with hot reload, the sign-in API passed to a running server (open
 * /portal/{workspaceId}/sign-in; the dev server answers index.html for every page path).
 */
export default frontEnd({ dir: import.meta.url, name: 'portal', base: '/portal/', proxy: ['^/portal/[^/]+/api/'] });
