import { Effect } from "effect"
import type { PolicyBlock } from "../../schemas/policy"
import { InvalidValue, locateKey } from "../../platform/toml"

/**
 * Cross-block check the project config runs after decoding (decisions.md 10):
 * `[policy] freeze_marker_writes = true` needs an object tier (`[state]` object store URL).
 */
export const checkFreezeMarkerWrites = (
  policy: PolicyBlock | undefined,
  objectStoreUrl: string | undefined,
  text: string,
  file: string
): Effect.Effect<void, InvalidValue> =>
  policy?.freeze_marker_writes === true && objectStoreUrl === undefined
    ? Effect.fail(
        new InvalidValue({
          file,
          line: locateKey(text, ["policy", "freeze_marker_writes"]),
          path: "policy.freeze_marker_writes",
          detail: "true needs an object tier: set a [state] object store URL (s3://, gs://, az:// or file://)"
        })
      )
    : Effect.void
