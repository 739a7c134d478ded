export { seedDemo } from './demo-seed.js';
