// The demo module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { seedDemo } from './demo-seed.js';
