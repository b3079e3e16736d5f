// The light entry of `pcli state info` (dist/pcli-state-info.cjs).
import { runInfo } from "../cli/state.run"
import { runLight } from "./main"

runLight("state info", runInfo)
