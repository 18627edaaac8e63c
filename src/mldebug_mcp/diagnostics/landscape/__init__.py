"""The loss landscape around the model's current parameters, on one batch (Li et al. 2018).

Two sides share this folder, as in ../distributed. The parent side (launch.py) starts and watches the
child and never imports torch. Everything else runs in the user's interpreter, loaded by path: child.py
is the entry point (build the spec, load the checkpoint, probe, write the report), probe.py orders the
work within the time budget, point.py moves the parameters and puts them back bit for bit,
directions.py draws the filter-normalised directions, hessian.py the Hessian-vector products and power
iteration, fit.py the quadratic fits and verdict.py the call (minimum, slope, plateau, saddle). Those
modules import only the standard library, torch, ../checks and each other, all relatively.

This file is imported on both sides: it holds names only.
"""

DEFAULT_POINTS = 41  # per 1-D line: steps of 0.05 over [-1, 1]
DEFAULT_GRID = 21  # side of the 2-D grid (441 evaluations)
DEFAULT_SPAN = 1.0  # Li et al. plot [-1, 1]: alpha = 1 moves every filter by its own norm
DEFAULT_BUDGET_S = 60.0
DEFAULT_POWER_ITERATIONS = 20  # per eigenvalue; each is one Hessian-vector product
