// The light entry of `pcli audit` (dist/pcli-audit.cjs).
import { runAudit } from "../cli/audit.run"
import { runLight } from "./main"

runLight("audit", runAudit)
