// The light entry of `pcli policy show` (dist/pcli-policy-show.cjs).
import { commonOf } from "../cli/lightOptions"
import { runShow } from "../cli/policyRead.run"
import { runLightLine } from "./main"

runLightLine((flags) => runShow(commonOf(flags)))
