// The test-clocks module's public face (docs/ARCHITECTURE.md: a module): a sandbox's clock, read and moved forward.
export { TestClockAdvance } from './test-clocks.schemas.js';
export { advanceTestClock, getTestClock } from './test-clocks.service.js';
export { testClockAdminRoutes, default as testClockRoutes } from './test-clocks.routes.js';
