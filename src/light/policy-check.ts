// The light entry of `pcli policy check` (dist/pcli-policy-check.cjs).
import { runCheck } from "../cli/policyRead.run"
import { runLight } from "./main"

runLight("policy check", runCheck)
