export { default as meRoutes } from './me.routes.js';
