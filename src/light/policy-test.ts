// The light entry of `pcli policy test` (dist/pcli-policy-test.cjs).
import { runTest } from "../cli/policy.run"
import { runLight } from "./main"

runLight("policy test", runTest)
