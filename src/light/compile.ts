// The light entry of `pcli compile` (dist/pcli-compile.cjs).
import { runCompile } from "../cli/compile.run"
import { commonOf } from "../cli/lightOptions"
import { runLightLine } from "./main"

runLightLine((flags) => runCompile(commonOf(flags)))
