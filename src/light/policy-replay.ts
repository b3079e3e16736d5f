// The light entry of `pcli policy replay` (dist/pcli-policy-replay.cjs).
import { runReplay } from "../cli/policy.run"
import { runLight } from "./main"

runLight("policy replay", runReplay)
