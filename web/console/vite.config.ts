import { frontEnd } from '../kit/vite.js';

/**
 * The admin console: built into dist/console and served by the server at /console (src/plugins/console.ts).
 * `npx vite web/console`: the console with hot reload, its API calls passed to a running server.
 */
export default frontEnd({ dir: import.meta.url, name: 'console', base: '/console/', proxy: ['/admin', '/v1'] });
