// The light entry of `pcli compile` (dist/pcli-compile.cjs).
import { runCompile } from "../cli/compile.run"
import { runLight } from "./main"

runLight("compile", runCompile)
