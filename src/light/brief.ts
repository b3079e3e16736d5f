// The light entry of `pcli brief` (dist/pcli-brief.cjs).
import { runBrief } from "../cli/brief.run"
import { runLight } from "./main"

runLight("brief", runBrief)
