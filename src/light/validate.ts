// The light entry of `pcli validate` (dist/pcli-validate.cjs).
import { runValidate } from "../cli/validate.run"
import { runLight } from "./main"

runLight("validate", runValidate)
