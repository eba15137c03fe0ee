import type * as z from 'zod';

/**
 * Options for a refinement that reads several members of an object (`end` after `start`, a
 * range read in `timezone`, ids unique across entries): it runs only when the object parsed
 * without a single issue. zod would otherwise run it on members that already failed (a refined
 * string is still a string), and a rule that trusts its inputs then throws, which is a 500.
 * A client fixing a body sees the members' problems first, then these.
 */
export const whenMembersValid: z.core.$ZodSuperRefineParams = {
  when: (payload) => payload.issues.length === 0,
};
