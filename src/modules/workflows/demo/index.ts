// demo (docs/ARCHITECTURE.md, "A module"): its public face.
export { seedDemo } from './demo-seed.js';
