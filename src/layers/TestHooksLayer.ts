import { Effect, Layer } from "effect"
import * as TestHooks from "../platform/testHooks"
import { Environment } from "../services/Environment/Environment"

/**
 * The crash-safety tests drive the real binary, so the binary selects their hooks itself: only
 * when a test-only variable (`PCLI_TEST_CRASH_AFTER`, `PCLI_TEST_PAUSE_AT`) is set; otherwise the
 * `Checkpoints` default (nothing happens) stands.
 */
export const TestHooksLayer = Layer.unwrapEffect(
  Effect.map(Environment, (env) => {
    const settings = { crashAfter: env["PCLI_TEST_CRASH_AFTER"], pauseAt: env["PCLI_TEST_PAUSE_AT"] }
    return TestHooks.requested(settings) ? TestHooks.layer(settings) : Layer.empty
  })
)
