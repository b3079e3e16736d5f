// The light entry of `pcli ls` (dist/pcli-ls.cjs).
import { runLs } from "../cli/inspect.run"
import { runLight } from "./main"

runLight("ls", runLs)
