// test-clocks (docs/ARCHITECTURE.md, "A module"): its public face: a sandbox's clock, read and moved forward.
export { TestClockAdvance } from './test-clocks.schemas.js';
export { advanceTestClock, getTestClock } from './test-clocks.service.js';
export { testClockAdminRoutes, default as testClockRoutes } from './test-clocks.routes.js';
