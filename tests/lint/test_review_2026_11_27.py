"""Defects found reviewing the lint changes of 2026-11-27: each test fails before its fix."""

import ast

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.helpers.kinds import facts


def _chain(sites: int, levels: int = 9, top: str = "") -> str:
    """A loss helper whose output parameter is handed on by `levels` helpers, each calling the one below
    `sites` times."""
    lines = ["import torch.nn.functional as F", "from nets import Net", "def l0(out, y):",
             "    return F.cross_entropy(out, y)"]
    for level in range(1, levels + 1):
        lines += [f"def l{level}(out, y):"] + [f"    l{level - 1}(out, y)"] * sites
    return "\n".join(lines) + "\n" + top


def test_handed_output_walks_each_parameter_once(monkeypatch):
    """kinds/facts.py _handed_output followed every call site of every helper without a memo: one walk per
    path, sites ** depth of them (six sites a level: 46 s on a 70-line file)."""
    calls = []
    real = facts.call_sites
    monkeypatch.setattr(facts, "call_sites", lambda *a, **k: calls.append(1) or real(*a, **k))
    lint_source(_chain(sites=3), "train.py")
    assert len(calls) < 500  # 3 ** 8 = 6561 walks per loss before


def test_handed_output_memo_keeps_the_answer():
    """The memo changes no answer: the model of another file fed through the helpers is still named, and a
    caller extending the answer does not change the next one."""
    source = _chain(sites=2, levels=3, top="net = Net()\nl3(net(x), y)\n")
    ctx = build_context("train.py", source, ast.parse(source))
    loss = next(c for c in ctx.by_type[ast.Call] if ctx.call_name(c) == "torch.nn.functional.cross_entropy")
    first = facts.fed_names(loss.args[0], ctx)
    assert "Net" in first
    first.add("changed")
    assert facts.fed_names(loss.args[0], ctx) == first - {"changed"}


def test_squeeze_called_with_keyword_input_does_not_crash():
    """MLD041 read `torch.squeeze(...)`'s tensor as args[0]: `torch.squeeze(input=x)` in a forward raised
    IndexError and ended the run."""
    source = ("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
              "    def forward(self, x):\n        return torch.squeeze(input=x)\n")
    assert [(f.code, f.line) for f in lint_source(source, "model.py")] == [("MLD041", 7)]


def test_empty_tuple_subscript_on_a_loss_argument_does_not_crash():
    """MLD005 read the first index of `x[()]` (an empty tuple): IndexError ended the run."""
    source = "import torch.nn.functional as F\nloss = F.mse_loss(pred, target[()])\n"
    assert [f.code for f in lint_source(source, "train.py")] == []


PHASE_STEP = """import torch


def run_epoch(model, loader, opt, crit, phase):
    model.train()
    for x, y in loader:
        if phase == "train":
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
        else:
{switch}            with torch.no_grad():
                print(model(x))
"""


def test_forward_in_the_other_branch_of_the_phase_test_runs_in_training_mode():
    """modes_phase skipped every forward under the `if` that guards the update, its `else:` branch (the
    validation phase, which runs the model in training mode) included."""
    found = lint_source(PHASE_STEP.format(switch=""), "train.py")
    assert [(f.code, f.line) for f in found if f.code == "MLD020"] == [("MLD020", 5)]
    switched = lint_source(PHASE_STEP.format(switch="            model.eval()\n"), "train.py")
    assert [f for f in switched if f.code == "MLD020"] == []


class _CountingTypes(dict):
    """ctx.by_type that counts how often the module's calls are read whole."""

    def __init__(self, *args):
        super().__init__(*args)
        self.calls = 0

    def get(self, key, default=None):
        self.calls += key is ast.Call
        return super().get(key, default)


def test_grown_lists_read_the_module_calls_once():
    """kinds/stores.py grown_list read every call of the module for each list a Sequential is built from
    (quadratic: 600 small builders took 2.7 s); the answer stays the same."""
    from mldebug_mcp.lint.helpers.kinds import kind_of

    lines = ["import torch.nn as nn", "import torch.nn.functional as F"]
    for i in range(40):
        lines += [f"def build{i}(x, y):", "    layers = [nn.Linear(2, 2)]", "    layers.append(nn.Softmax(1))",
                  "    model = nn.Sequential(*layers)", "    return F.cross_entropy(model(x), y)"]
    source = "\n".join(lines) + "\n"
    ctx = build_context("m.py", source, ast.parse(source))
    ctx.by_type = _CountingTypes(ctx.by_type)
    losses = [c for c in ctx.by_type[ast.Call] if ctx.call_name(c) == "torch.nn.functional.cross_entropy"]
    assert {kind_of(c.args[0], ctx) for c in losses} == {"softmax"}
    assert ctx.by_type.calls < 10  # once per list before


def test_untrained_attributes_read_the_class_once(monkeypatch):
    """optim_untrained_attrs walked the whole class once per weighted `self.X = ...` (quadratic: a class of 400
    layers took 1.6 s); the finding stays."""
    from mldebug_mcp.lint.helpers import optim_untrained_attrs

    calls = []
    real = optim_untrained_attrs.dotted
    monkeypatch.setattr(optim_untrained_attrs, "dotted", lambda node: calls.append(1) or real(node))
    layers = 60
    lines = ["import torch", "import torch.nn as nn", "class T:", "    def __init__(self):"]
    lines += [f"        self.l{i} = nn.Linear(2, 2)" for i in range(layers)]
    lines += ["        self.opt = torch.optim.SGD(self.l0.parameters())", "    def step(self, x):", "        h = x"]
    lines += [f"        h = self.l{i}(h)" for i in range(layers)]
    lines += ["        h.sum().backward()", "        self.opt.step()"]
    found = lint_source("\n".join(lines) + "\n", "train.py")
    assert [(f.code, f.line) for f in found] == [("MLD015", layers + 5)]
    assert "self.l1 " in found[0].message
    assert len(calls) < 20 * layers  # once per attribute read and assignment, not per pair


def test_local_function_lookup_is_memoised_per_scope(monkeypatch):
    """optim_steps.function_named walked every ancestor of a call for each call of each block expanded (a
    400-branch elif chain took 40 s): asked again in the same scope, it answers from its memo."""
    from mldebug_mcp.lint.helpers import optim_steps

    source = ("def helper(opt):\n    opt.zero_grad()\n\n\ndef train(opt):\n"
              "    def helper(opt):\n        opt.step()\n    helper(opt)\n    helper(opt)\n\n\nhelper(opt)\n")
    ctx = build_context("m.py", source, ast.parse(source))
    calls = sorted((c for c in ctx.by_type[ast.Call] if isinstance(c.func, ast.Name) and c.func.id == "helper"),
                   key=lambda c: c.lineno)
    walks = []
    real = optim_steps.ModuleContext.ancestors
    monkeypatch.setattr(optim_steps.ModuleContext, "ancestors", lambda self, n: walks.append(n) or real(self, n))
    found = [optim_steps.function_named(c.func, ctx) for c in calls]
    assert [f.lineno for f in found] == [6, 6, 1]  # the nested def inside train, the module's outside
    assert len(walks) == 2  # once per scope


def test_evaluation_names_are_worked_out_once_per_scope(monkeypatch):
    """modes_evidence._eval_names_before replayed the scope's bindings from the first one for every model call
    (quadratic in a long script); the names each call sees stay the same."""
    from mldebug_mcp.lint.helpers import modes_evidence

    lines = ["import torch", "model = torch.nn.Linear(2, 2)", "x_val = next(iter(val_loader))"]
    for i in range(30):
        lines += [f"h{i} = x_val" if i % 2 else f"h{i} = x_train", f"out{i} = model(h{i})"]
    source = "\n".join(lines) + "\n"
    ctx = build_context("m.py", source, ast.parse(source))
    replayed = []
    real = modes_evidence._paired
    monkeypatch.setattr(modes_evidence, "_paired", lambda t, v: replayed.append(1) or real(t, v))
    calls = sorted((c for c in ctx.by_type[ast.Call] if isinstance(c.func, ast.Name) and c.func.id == "model"),
                   key=lambda c: c.lineno)
    seen = [sorted(modes_evidence._eval_names_before(c, ctx.tree, ctx)) for c in calls]
    assert seen[0] == ["x_val"]  # h0 holds training data
    assert seen[1] == seen[2] == ["h1", "out1", "x_val"]  # a binding earlier on the call's line counts
    assert len(replayed) < 100  # 30 * 31 = 930 replays before


GAN_STEP = """import torch


def train(netG, netD, optD, optG, loader, crit, z, fake_label, real_label):
    for real in loader:
{switches}        fake = netG(z)
        optD.zero_grad()
        d_loss = crit(netD(fake), fake_label) + crit(netD(real), real_label)
        d_loss.backward()
        optD.step()
        g_loss = crit(netD(fake), real_label)
        g_loss.backward()
        optG.step()
"""


def test_generator_unfrozen_again_before_the_discriminator_backward_counts():
    """gan_fake.generator_frozen took any requires_grad(False) of the generator before the backward as a freeze,
    even one undone (requires_grad_(True)) before it: the fake's gradients reach the generator again."""
    def codes(switches: str) -> list[tuple[str, int]]:
        source = GAN_STEP.format(switches=switches)
        return [(f.code, f.line) for f in lint_source(source, "train.py") if f.code == "MLD035"]

    frozen = "        netG.requires_grad_(False)\n"
    assert codes("") == [("MLD035", 8)]
    assert codes(frozen) == []
    assert codes(frozen + "        netG.requires_grad_(True)\n") == [("MLD035", 10)]


PARTS = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(2, 2)
        self.head = nn.Linear(2, 2)
        self.down = nn.Linear(2, 2)

    def forward(self, x):
        return self.down(self.head(self.backbone(x)))


class Other(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(2, 2)
        self.head = nn.Linear(2, 2)


model = Net()
groups = [{"params": model.backbone.parameters(), "lr": 0.01}]
groups += [{"params": model.head.parameters()}]
opt = torch.optim.SGD(groups, lr=0.1)
"""


def test_parts_gathered_in_a_list_name_the_model_class():
    """optim_children looked for the model's name only inside the optimiser call: groups gathered first
    (`groups += [...]`, the helper's own example) found the model's class only when one local class alone
    builds the parts, and never at module level."""
    found = [(f.code, f.line) for f in lint_source(PARTS, "train.py") if f.code == "MLD015"]
    assert found == [("MLD015", 26)]
    assert "model.down" in next(f.message for f in lint_source(PARTS, "train.py") if f.code == "MLD015")


CLOSURE = """import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.{built}


def closure():
    loss = model(x).sum()
    loss.backward()
    return loss


{body}"""


def test_closure_stepped_once_at_module_level_is_quiet():
    """optim_closure._zeroed_around answered False for a step outside any loop or function, so one
    `opt.zero_grad(); opt.step(closure)` of a script was flagged, while the same lines in a function were not."""
    def codes(built: str, body: str) -> list[str]:
        source = CLOSURE.format(built=built, body=body)
        return [f.code for f in lint_source(source, "train.py") if f.code == "MLD010"]

    sgd, lbfgs = "SGD(model.parameters(), lr=0.1)", "LBFGS(model.parameters())"
    assert codes(sgd, "opt.zero_grad()\nopt.step(closure)\n") == []
    assert codes(sgd, "def main():\n    opt.zero_grad()\n    opt.step(closure)\n") == []
    assert codes(lbfgs, "opt.zero_grad()\nopt.step(closure)\n") == ["MLD010"]  # evaluated many times per step
    assert codes(sgd, "for _ in range(3):\n    opt.step(closure)\n") == ["MLD010"]
