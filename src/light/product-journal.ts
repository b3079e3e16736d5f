// The light entry of `pcli product journal` (dist/pcli-product-journal.cjs).
import { runJournal } from "../cli/product.run"
import { runLight } from "./main"

runLight("product journal", runJournal)
