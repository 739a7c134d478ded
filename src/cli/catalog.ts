import type { CommandGroup } from './command.js';

/** `portal products|prices|invoice-templates|subscription-templates …` (placeholder). */
export const catalogGroups: Record<string, CommandGroup> = {};
