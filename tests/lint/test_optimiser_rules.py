"""The optimiser-step rules between themselves: one finding per bug, in the class that names it, saying why."""

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

OPTIMISER_RULES = ("MLD010", "MLD011", "MLD012", "MLD013", "MLD014", "MLD015", "MLD017", "MLD018", "MLD019")


def _findings(source: str) -> list[tuple[int, str, str]]:
    found = lint_source(source, "snippet.py", LintSettings(select=OPTIMISER_RULES))
    return [(f.line, f.code, f.message) for f in found]


STUDENT_NEVER_ZEROED = """\
def train(teacher, student, gen, opt_t, opt_s, opt_g, batches, loss_fn):
    for batch in batches:
        opt_t.zero_grad()
        loss_fn(teacher(batch)).backward()
        opt_t.step()
        for _ in range(3):
            loss_fn(student(gen(batch).detach())).backward()
            opt_s.step()
        opt_g.zero_grad()
        loss_fn(student(gen(batch))).backward()
        opt_g.step()
"""


def test_an_optimiser_left_out_where_others_are_zeroed_is_mld017_only():
    found = _findings(STUDENT_NEVER_ZEROED)
    assert [(line, code) for line, code, _ in found] == [(7, "MLD017")]
    assert "opt_s" in found[0][2] and "opt_t" in found[0][2]


def test_a_critic_zeroed_once_per_batch_is_mld010_and_says_so():
    source = STUDENT_NEVER_ZEROED.replace("        opt_t.zero_grad()\n", "        opt_t.zero_grad()\n        opt_s.zero_grad()\n")
    found = _findings(source)
    assert [(line, code) for line, code, _ in found] == [(7, "MLD010")]  # at the critic loop, where the zero_grad() moves
    assert "once before this loop" in found[0][2]


def test_zeroing_in_a_local_helper_counts():
    source = (
        "def reset(*optimizers):\n"
        "    for opt in optimizers:\n"
        "        opt.zero_grad()\n"
        "def train(g, d, opt_g, opt_d, batches, loss_fn):\n"
        "    for batch in batches:\n"
        "        reset(opt_g, opt_d)\n"
        "        loss_fn(d(batch), d(g(batch).detach())).backward()\n"
        "        opt_d.step()\n"
        "        reset(opt_g, opt_d)\n"
        "        loss_fn(d(g(batch))).backward()\n"
        "        opt_g.step()\n"
    )
    assert _findings(source) == []


def test_the_forgotten_group_and_the_left_out_module_are_named():
    source = (
        "import torch\n"
        "def build(model, criterion):\n"
        "    groups = []\n"
        "    group = {'params': model.encoder.parameters(), 'lr': 1e-4}\n"
        "    groups.append(group)\n"
        "    group = {'params': model.head.parameters(), 'lr': 1e-3}\n"
        "    return torch.optim.AdamW(groups)\n"
        "params = list(model.parameters()) + list(criterion.parameters())\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=1.0)\n"
    )
    messages = {line: message for line, code, message in _findings(source) if code == "MLD015"}
    assert "'group' built on line 6" in messages[7]
    assert "criterion" in messages[9]


ZEROED_EVERY_MICRO_BATCH = """\
def train(model, opt, loader, loss_fn, accum):
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        if (i + 1) % accum == 0:
            opt.step()
"""


def test_zeroing_every_micro_batch_is_mld018_only():
    # nothing accumulates, so the missing division (MLD014) is not a second finding
    assert [(line, code) for line, code, _ in _findings(ZEROED_EVERY_MICRO_BATCH)] == [(3, "MLD018")]


RUNNING_COUNT = """\
def train(model, opt, loader, loss_fn, accum):
    for i, (x, y) in enumerate(loader):
        (loss_fn(model(x), y) / (i + 1)).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
"""


def test_a_running_count_divisor_is_mld019_not_mld014():
    assert [(line, code) for line, code, _ in _findings(RUNNING_COUNT)] == [(3, "MLD019")]


ACCUMULATING = """\
def train(model, opt, loader, loss_fn, accum):
    for i, (x, y) in enumerate(loader):
        (loss_fn(model(x), y) / accum).backward()
        if STEP_TEST:
            opt.step()
            opt.zero_grad()
"""


def _step_test_findings(test: str) -> list[tuple[int, str, str]]:
    found = lint_source(ACCUMULATING.replace("STEP_TEST", test), "snippet.py", LintSettings(select=("MLD034",)))
    return [(f.line, f.code, f.message) for f in found]


def test_an_inverted_accumulation_test_is_mld034():
    for test in ("i % accum", "i % accum != 0", "i % accum > 0", "not i % accum == 0"):
        found = _step_test_findings(test)
        assert [(line, code) for line, code, _ in found] == [(4, "MLD034")], test
        assert "inverted" in found[0][2]


def test_a_zero_based_counter_steps_after_one_micro_batch():
    found = _step_test_findings("i % accum == 0")
    assert [(line, code) for line, code, _ in found] == [(4, "MLD034")]
    assert "i starts at 0" in found[0][2] and "(i + 1) % accum == 0" in found[0][2]


def test_correct_accumulation_tests_are_quiet():
    for test in ("(i + 1) % accum == 0", "(i + 1) % accum == 0 or i + 1 == len(loader)", "i % 2", "i % accum == accum - 1"):
        assert _step_test_findings(test) == [], test
    counted_from_one = ACCUMULATING.replace("enumerate(loader)", "enumerate(loader, start=1)").replace(
        "STEP_TEST", "i % accum == 0")
    assert lint_source(counted_from_one, "snippet.py", LintSettings(select=("MLD034",))) == []


def test_a_window_opened_on_remainder_one_never_clears_with_one_micro_batch():
    source = (
        "def train(model, opt, loader, loss_fn, per_update):\n"
        "    for i, (x, y) in enumerate(loader, 1):\n"
        "        if i % per_update == 1:\n"
        "            opt.zero_grad()\n"
        "        (loss_fn(model(x), y) / per_update).backward()\n"
        "        if i % per_update == 0:\n"
        "            opt.step()\n"
    )
    found = _findings(source)
    assert [(line, code) for line, code, _ in found] == [(4, "MLD010")]
    assert "never holds when per_update is 1" in found[0][2]
    fixed = source.replace("if i % per_update == 1:", "if per_update == 1 or i % per_update == 1:")
    assert _findings(fixed) == []
