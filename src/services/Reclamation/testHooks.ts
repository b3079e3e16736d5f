import { Effect } from "effect"
import { Environment } from "../Environment/Environment"
import { hooksFromEnvironment } from "../Products/testHooks"

/**
 * Test-only (docs/decisions.md): `PCLI_TEST_CRASH_AFTER=<step>` SIGKILLs the process at that
 * step, so a test can show a transaction leaves the old state or the new one, never both.
 * Steps: `gc-tombstone-written`, `restore-row-reinstated` (each inside its transaction).
 */
export const crashPoint = (step: string): Effect.Effect<void, never, Environment> =>
  Effect.flatMap(hooksFromEnvironment, (hooks) => hooks.after(step))
