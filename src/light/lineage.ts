// The light entry of `pcli lineage` (dist/pcli-lineage.cjs).
import { runLineage } from "../cli/inspect.run"
import { runLight } from "./main"

runLight("lineage", runLineage)
