// The light entry of `pcli history` (dist/pcli-history.cjs).
import { runHistory } from "../cli/history.run"
import { runLight } from "./main"

runLight("history", runHistory)
