// The light entry of `pcli product list` (dist/pcli-product-list.cjs).
import { runList } from "../cli/product.run"
import { runLight } from "./main"

runLight("product list", runList)
