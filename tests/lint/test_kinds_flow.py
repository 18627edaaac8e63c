"""Value kinds through the code (lint/helpers/kinds/): containers of layers, branches, buffers, handed-in objects,
and the origins a finding points at."""

import ast

import pytest

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.helpers.kinds import kind_of, traced_kind

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom collections import OrderedDict\n"


def _ctx(body: str):
    source = HEADER + body
    return build_context("m.py", source, ast.parse(source))


def _result(body: str):
    ctx = _ctx(body)
    return ctx, ctx.bindings[ctx.tree]["result"][-1]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a Sequential built by add_module: the last module added decides
        (("seq = nn.Sequential()\nseq.add_module('fc', nn.Linear(2, 2))\nseq.add_module('sm', nn.Softmax())\n"
         "result = seq(z)\n"), "softmax"),
        (("seq = nn.Sequential()\nseq.add_module('sm', nn.Softmax())\nseq.add_module('fc', nn.Linear(2, 2))\n"
         "result = seq(z)\n"), "logits"),
        # from a list literal, grown by append before the call; unknown when changed in another way
        ("layers = [nn.Linear(2, 2), nn.Sigmoid()]\nresult = nn.Sequential(*layers)(z)\n", "sigmoid"),
        ("layers = [nn.Linear(2, 2)]\nlayers.append(nn.Sigmoid())\nresult = nn.Sequential(*layers)(z)\n", "sigmoid"),
        ("layers = [nn.Linear(2, 2), nn.Sigmoid()]\nlayers.pop()\nresult = nn.Sequential(*layers)(z)\n", None),
        ("result = nn.Sequential(OrderedDict([('fc', nn.Linear(2, 2)), ('act', nn.LogSoftmax(1))]))(z)\n",
         "log_softmax"),
        # an `if` that may skip the assignment: both values must agree
        (("def f(z, training):\n    x = nn.Linear(2, 2)(z)\n    if not training:\n        x = x.softmax(1)\n"
         "    return x\nresult = f(z, False)\n"), None),
        (("def f(z, a):\n    if a:\n        x = F.softmax(z, 1)\n    else:\n        x = torch.softmax(z, 1)\n"
         "    return x\nresult = f(z, 1)\n"), "softmax"),
        # a buffer filled slot by slot takes the kind of what is stored
        (("def f(steps):\n    out = torch.zeros(3, 4).cuda()\n    for t in range(3):\n"
         "        out[t] = F.log_softmax(steps[t], 1)\n    return out\nresult = f(z)\n"), "log_softmax"),
        ("result = z.resize(4, 2).type_as(z)\nresult = F.sigmoid(z).resize(4, 2)\n", "sigmoid"),
    ],
)
def test_kind_through_containers_and_branches(body, expected):
    ctx, value = _result(body)
    assert kind_of(value, ctx) == expected


def test_an_attribute_assigned_in_both_branches_must_agree_and_keeps_both_origins():
    body = (
        "class Head(nn.Module):\n"
        "    def __init__(self, hidden):\n"
        "        super().__init__()\n"
        "        if hidden is None:\n"
        "            self.block = nn.Sequential(nn.Linear(2, 3), nn.Softmax())\n"
        "        else:\n"
        "            self.block = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax())\n"
        "    def forward(self, x):\n"
        "        return self.block(x)\n"
        "result = Head(None)(z)\n"
    )
    ctx, value = _result(body)
    found = traced_kind(value, ctx)
    assert found.kind == "softmax"
    assert [o.lineno for o in found.origins] == [9, 11]  # each nn.Softmax(), where the fix goes


def test_an_activation_module_is_located_where_it_is_applied():
    body = (
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.final = nn.Softmax()\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        "        out = self.final(x)\n"
        "        return out\n"
        "result = Net()(z)\n"
    )
    ctx, value = _result(body)
    assert [o.lineno for o in traced_kind(value, ctx).origins] == [11]


def test_an_attribute_of_a_handed_in_object_assigned_in_another_method():
    body = (
        "class Probe:\n"
        "    def setup(self, module):\n"
        "        module.head = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid())\n"
        "    def step(self, module, x):\n"
        "        out = module.head(x)\n"
        "        return out\n"
    )
    ctx = _ctx(body)
    out = next(n for n in ctx.by_type[ast.Return] if ctx.scope_of(n).name == "step").value
    assert kind_of(out, ctx) == "sigmoid"


def test_self_method_calls_return_what_the_method_returns():
    body = (
        "class Lit(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.sigmoid(x)\n"
        "    def training_step(self, x):\n"
        "        y = self.forward(x)\n"
        "        return y\n"
    )
    ctx = _ctx(body)
    step = next(n for n in ctx.by_type[ast.Return] if ctx.scope_of(n).name == "training_step").value
    assert kind_of(step, ctx) == "sigmoid"


def test_a_module_moved_onto_itself_is_one_module():
    body = (
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.head = nn.Softmax(1)\n"
        "        self.head = self.head.cuda()\n"
        "    def forward(self, x):\n"
        "        return self.head(x)\n"
        "result = Net()(z)\n"
    )
    ctx, value = _result(body)
    assert kind_of(value, ctx) == "softmax"
