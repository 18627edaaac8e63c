"""Minimum, slope, plateau or saddle: the call from the figures of the slices and the Hessian (pure Python).

Each slice L(alpha) through the point is summarised by a parabola fitted near alpha = 0 (see fit.py): its
slope, its curvature and its vertex, the alpha at which it is lowest. Alpha is in filter-normalised units
(alpha = 1 moves every filter by its own norm), so the thresholds below hold for any network size or
weight scale. In the order they are tried:

plateau  the loss moves by less than FLAT_RELATIVE of itself (plus FLAT_ABSOLUTE) anywhere on any slice:
         moving every filter by up to its whole norm, in any probed direction, the gradient included, leaves
         the loss where it is, so training has nothing to follow. 1e-3 is far above float32 rounding (1e-7)
         and far below any change that matters; a loss at exactly 0 that cannot move is a plateau too.
slope    along the gradient the fitted parabola is lowest more than VERTEX_STEPS grid steps away from the
         point, or does not curve up at all: going downhill keeps lowering the loss beyond the resolution
         of the grid, so the point is on the side of a valley, not at its bottom.
saddle   some probed direction curves down (its curvature is below -NEGATIVE_RATIO times the largest
         curvature seen), or the Hessian's smallest eigenvalue is below -NEGATIVE_RATIO times its largest:
         Li et al. read a ratio |lambda_min / lambda_max| near 0 as locally convex; a tenth is our line.
minimum  every slice curves up and has its vertex within VERTEX_STEPS grid steps of the point.
unclear  anything else (a slice without enough finite points, a non-finite loss at the point).

On one batch a converged point often reads as a slope: the batch gradient is not the full gradient.
"""

from __future__ import annotations

import math
from typing import Any

FLAT_RELATIVE = 1e-3
FLAT_ABSOLUTE = 1e-12
VERTEX_STEPS = 1.0
NEGATIVE_RATIO = 0.1

THRESHOLDS = {"flat_relative": FLAT_RELATIVE, "flat_absolute": FLAT_ABSOLUTE, "vertex_steps": VERTEX_STEPS,
              "negative_ratio": NEGATIVE_RATIO}


def classify(loss: float, lines: list[dict[str, Any]], step: float, lambda_max: float | None = None,
             lambda_min: float | None = None) -> tuple[str, str]:
    """(verdict, reason) from the loss at the point, the slices (direction, loss_range, slope, curvature,
    vertex) and the grid step of the slices."""
    if not math.isfinite(loss):
        return "unclear", f"the loss at the point is {loss}: there is no landscape to read"
    if not lines:
        return "unclear", "no direction could be probed (no trainable parameter moved)"
    flat = FLAT_RELATIVE * abs(loss) + FLAT_ABSOLUTE
    widest = max(line["loss_range"] for line in lines)
    if widest <= flat:
        return "plateau", (f"the loss stays within {widest:.3g} of {loss:.6g} along every probed direction (flat: "
                           f"under {FLAT_RELATIVE:g} of the loss); the parameters do not move it, so no gradient "
                           "can: look for dead units, a detached graph, or a loss saturated by its own clamp")
    limit = VERTEX_STEPS * step
    gradient = next((line for line in lines if line["direction"] == "gradient"), None)
    if gradient is not None and math.isfinite(gradient["slope"]):
        where = gradient["vertex"]
        if where is None or abs(where) > limit:
            place = (f"its fitted lowest point is at alpha = {where:.3g}" if where is not None
                     else "it does not curve up")
            return "slope", (f"against the gradient the loss falls at {gradient['slope']:.3g} per unit step and "
                             f"{place}, beyond one grid step ({limit:.3g}): downhill keeps going, so the point is "
                             "on the side of a valley, not at its bottom")
    curvatures = [line["curvature"] for line in lines if math.isfinite(line["curvature"])]
    top = max(curvatures, default=0.0)
    down = [line for line in lines if math.isfinite(line["curvature"]) and top > 0
            and line["curvature"] < -NEGATIVE_RATIO * top]
    if lambda_max is not None and lambda_min is not None and lambda_max > 0 and lambda_min < -NEGATIVE_RATIO * lambda_max:
        return "saddle", (f"the Hessian has lambda_min = {lambda_min:.3g} against lambda_max = {lambda_max:.3g} "
                          f"(ratio {lambda_min / lambda_max:.2f}, beyond -{NEGATIVE_RATIO:g}): some direction "
                          "curves down, so this is a saddle, not a minimum")
    if down:
        names = ", ".join(f"{line['direction']} ({line['curvature']:.3g})" for line in down)
        return "saddle", f"the loss curves down along {names}, against {top:.3g} upward: a saddle, not a minimum"
    if all(math.isfinite(line["curvature"]) and line["curvature"] > 0 and line["vertex"] is not None
           and abs(line["vertex"]) <= limit for line in lines):
        shown = ", ".join(f"{line['direction']} {line['curvature']:.3g}" for line in lines)
        return "minimum", (f"every slice curves up (curvature per squared unit step: {shown}) and is lowest within "
                           f"one grid step ({limit:.3g}) of the point: the point sits at the bottom of a valley")
    return "unclear", ("the slices disagree: not every one curves up with its lowest point at the current "
                       "parameters, and none shows a clear downhill direction; look at the plots")
