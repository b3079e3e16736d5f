// The light entry of `pcli review` (dist/pcli-review.cjs).
import { runReview } from "../cli/review.run"
import { runLight } from "./main"

runLight("review", runReview)
