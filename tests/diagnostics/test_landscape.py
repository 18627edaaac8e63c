"""The landscape probe in process, on constructed cases with known answers: a quadratic bowl (known Hessian),
a point on its slope, a plateau, a saddle; the parameters put back bit for bit; the pure parts (fit, verdict)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from mldebug_mcp.diagnostics.landscape.fit import quadratic_fit, vertex
from mldebug_mcp.diagnostics.landscape.probe import probe
from mldebug_mcp.diagnostics.landscape.verdict import classify

pytestmark = pytest.mark.usefixtures("single_thread")
EIGENVALUES = [0.5, 1.0, 2.0, 3.0, 10.0]
CENTRE = [1.0, -2.0, 3.0, 0.5, 2.0]


class Quadratic(torch.nn.Module):
    """L(w) = 1/2 (w - c)^T H (w - c) with H = diag(h) rotated by a fixed orthogonal Q: known eigenvalues.
    One filter (a 1 x n weight), so the random directions are random, not the weights' own signs."""

    def __init__(self, eigenvalues, centre, offset=0.0):
        super().__init__()
        n = len(eigenvalues)
        q, _ = torch.linalg.qr(torch.randn(n, n, generator=torch.Generator().manual_seed(3), dtype=torch.float64))
        self.register_buffer("hessian", q @ torch.diag(torch.tensor(eigenvalues, dtype=torch.float64)) @ q.T)
        self.register_buffer("centre", torch.tensor(centre, dtype=torch.float64))
        self.w = torch.nn.Parameter(self.centre.clone().reshape(1, n) + offset)

    def forward(self, _):
        e = self.w.reshape(-1) - self.centre
        return 0.5 * e @ self.hessian @ e


def _loss(model):
    return model(None)


def test_the_bowl_bottom_is_a_minimum_with_its_largest_eigenvalue_recovered():
    bowl = Quadratic(EIGENVALUES, CENTRE)
    report = probe(bowl, _loss, power_iterations=100, budget_s=30)
    assert report["verdict"] == "minimum", report["reason"]
    assert report["sharpness"]["lambda_max"] == pytest.approx(max(EIGENVALUES), rel=1e-3)
    # the shifted iteration converges to within about 1% of the spectrum's width (lambda_max - lambda_min)
    assert report["sharpness"]["lambda_min"] == pytest.approx(min(EIGENVALUES), abs=0.02 * max(EIGENVALUES))
    assert report["sharpness"]["converged"]
    for line in report["lines"]:
        # the fit of an exact parabola is exact, and matches d.H.d from the Hessian-vector product
        assert line["curvature"] == pytest.approx(line["curvature_hvp"], rel=1e-6)
        assert min(EIGENVALUES) - 1e-9 <= line["rayleigh"] <= max(EIGENVALUES) + 1e-9
        assert abs(line["slope"]) < 1e-9
    assert report["gradient_norm"] == 0.0 and "gradient at the point is exactly zero" in " ".join(report["notes"])


def test_a_point_up_the_side_of_the_bowl_is_on_a_slope():
    bowl = Quadratic(EIGENVALUES, CENTRE, offset=2.0)
    report = probe(bowl, _loss, budget_s=30)
    assert report["verdict"] == "slope", report["reason"]
    gradient = next(line for line in report["lines"] if line["direction"] == "gradient")
    # the slope along the gradient direction d = g / |g| * s is |g| * s
    assert gradient["slope"] == pytest.approx(report["gradient_norm"] * gradient["norm"], rel=1e-6)
    assert gradient["vertex"] < -0.05


def test_a_loss_the_parameters_cannot_move_is_a_plateau():
    torch.manual_seed(0)
    dead = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
    with torch.no_grad():
        dead[0].bias.fill_(-100.0)  # every unit dead: output 0 whatever the weights
    x, y = torch.randn(16, 4), torch.randn(16, 8)
    report = probe(dead, lambda m: torch.nn.functional.mse_loss(m(x), y), budget_s=30)
    assert report["verdict"] == "plateau", report["reason"]
    assert all(line["loss_range"] == 0.0 for line in report["lines"])


def test_a_saddle_is_not_called_a_minimum():
    saddle = Quadratic([-3.0, 1.0, 2.0, 4.0, 5.0], CENTRE)
    report = probe(saddle, _loss, power_iterations=100, budget_s=30)
    assert report["verdict"] == "saddle", report["reason"]
    assert report["sharpness"]["lambda_min"] == pytest.approx(-3.0, rel=1e-2)


def test_parameters_buffers_and_modes_are_restored_bit_for_bit():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                              torch.nn.Dropout(0.2), torch.nn.Linear(16, 3))
    net.eval()
    net[3].train()  # a mixed mode that must survive too
    before = {k: v.clone() for k, v in net.state_dict().items()}
    modes = [m.training for m in net.modules()]
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    report = probe(net, lambda m: torch.nn.functional.cross_entropy(m(x), y), grid=7, budget_s=30)
    assert report["surface"]["size"] == 7 and report["mode"] == "train"
    after = net.state_dict()
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert torch.equal(value, after[key]) and value.dtype == after[key].dtype, key
    assert [m.training for m in net.modules()] == modes
    assert all(p.grad is None for p in net.parameters())


def test_the_grid_shrinks_to_fit_a_small_budget():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    x, y = torch.randn(32, 6), torch.randn(32, 1)
    slow = lambda m: (__import__("time").sleep(0.002), torch.nn.functional.mse_loss(m(x), y))[1]
    report = probe(net, slow, points=11, grid=51, power_iterations=2, budget_s=0.4)
    assert report["surface"] is None or report["surface"]["size"] < 51
    assert any("grid" in note for note in report["notes"])


def test_one_direction_gives_no_grid():
    bowl = Quadratic(EIGENVALUES, CENTRE, offset=0.5)
    report = probe(bowl, _loss, directions=1, budget_s=30)
    assert report["surface"] is None
    assert [line["direction"] for line in report["lines"]] == ["random_1", "gradient"]


def test_quadratic_fit_recovers_a_parabola_and_its_vertex():
    alphas = [i / 10 - 1 for i in range(21)]
    losses = [3.0 + 0.5 * a + 0.5 * 4.0 * a * a for a in alphas]
    level, slope, curvature = quadratic_fit(alphas, losses)
    assert (level, slope, curvature) == pytest.approx((3.0, 0.5, 4.0))
    assert vertex(slope, curvature) == pytest.approx(-0.125)
    assert vertex(0.5, -1.0) is None
    assert all(math.isnan(v) for v in quadratic_fit([0.0, 1.0], [1.0, 2.0]))


def _line(direction, curvature, vertex_at, loss_range=1.0, slope=0.0):
    return {"direction": direction, "curvature": curvature, "vertex": vertex_at, "loss_range": loss_range,
            "slope": slope}


def test_verdict_thresholds():
    step = 0.05
    assert classify(1.0, [_line("random_1", 1.0, 0.0, loss_range=5e-4)], step)[0] == "plateau"
    assert classify(1.0, [_line("random_1", 1.0, 0.0, loss_range=2e-3)], step)[0] == "minimum"
    assert classify(1.0, [_line("gradient", 1.0, -0.2, slope=0.2)], step)[0] == "slope"
    assert classify(1.0, [_line("gradient", -1.0, None, slope=0.2)], step)[0] == "slope"
    assert classify(1.0, [_line("random_1", 2.0, 0.0), _line("random_2", -0.5, None)], step)[0] == "saddle"
    assert classify(1.0, [_line("random_1", 2.0, 0.0)], step, lambda_max=2.0, lambda_min=-0.5)[0] == "saddle"
    assert classify(1.0, [_line("random_1", 2.0, 0.0)], step, lambda_max=2.0, lambda_min=-0.1)[0] == "minimum"
    assert classify(float("nan"), [_line("random_1", 2.0, 0.0)], step)[0] == "unclear"


def test_slices_keep_their_fit_points_when_the_budget_runs_out():
    bowl = Quadratic(EIGENVALUES, CENTRE, offset=0.5)
    slow = lambda m: (__import__("time").sleep(0.01), m(None))[1]
    report = probe(bowl, slow, points=41, directions=1, power_iterations=1, budget_s=0.05)
    for line in report["lines"]:
        assert sum(math.isfinite(v) for v in line["losses"]) >= 5 and math.isfinite(line["curvature"])
        assert math.isnan(line["losses"][0])  # the outermost point, the last to be evaluated
    assert any("outer points are NaN" in note for note in report["notes"])


def test_the_child_side_is_self_contained_for_the_users_interpreter():
    """Everything but launch.py runs in the user's interpreter by path: stdlib, torch and relative imports only,
    torch only inside functions."""
    import ast
    import sys
    from pathlib import Path

    import mldebug_mcp.diagnostics.landscape as package

    allowed = set(sys.stdlib_module_names) | {"torch", "__future__"}
    for path in Path(package.__file__).parent.glob("*.py"):
        if path.name == "launch.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert all(n.split(".")[0] in allowed for n in names), f"{path.name} imports {names}"
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert "torch" not in [n.split(".")[0] for n in names], f"{path.name}: module-level torch import"
