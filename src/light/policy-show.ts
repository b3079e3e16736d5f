// The light entry of `pcli policy show` (dist/pcli-policy-show.cjs).
import { runShow } from "../cli/policyRead.run"
import { runLight } from "./main"

runLight("policy show", runShow)
