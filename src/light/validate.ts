// The light entry of `pcli validate` (dist/pcli-validate.cjs).
import { commonOf } from "../cli/lightOptions"
import { runValidate } from "../cli/validate.run"
import { runLightLine } from "./main"

runLightLine((flags) => runValidate(commonOf(flags)))
