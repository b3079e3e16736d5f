// The light entry of `pcli policy check` (dist/pcli-policy-check.cjs).
import { checkOf } from "../cli/lightOptions"
import { runCheck } from "../cli/policyRead.run"
import { runLightLine } from "./main"

runLightLine((flags) => runCheck(checkOf(flags)))
