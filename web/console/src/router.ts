import { createRouter } from '../../kit/router.js';

export { match } from '../../kit/router.js';

/** The console's router: mounted by the server at /console; every in-app path is relative to it. */
export const { Link, navigate, usePath } = createRouter('/console');
