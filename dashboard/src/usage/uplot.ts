// uPlot and its stylesheet, one module so that the Usage page's dynamic import()
// brings both in one lazy chunk and the first page stays small (docs/dashboard.md).
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export default uPlot;
