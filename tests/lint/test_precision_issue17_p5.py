"""Issue 17 (held-out precision sample), task P5: MLD020 families read on whole small files rather than in the
single fixture tests/lint/fixtures/mld020.py: those that depend on the file's name (tests of a pytest module,
an evaluation script named like one) or on another file of the run (a precise-BN statistics refresh), and
a class of a module bound at run time, a log-prob pass that can turn autograd on, a robustness evaluation
that enables grad for its attack."""

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

from .families import project_findings


def _lines(source: str, path: str, code: str = "MLD020") -> list[int]:
    return [f.line for f in lint_source(source, path, LintSettings(select=(code,))) if f.code == code]


# a parity test: weights copied into a second implementation, both run, outputs compared
PARITY = '''
import torch
from mylib import GPT, convert_weights
from transformers import LlamaForCausalLM


@torch.inference_mode()
def check_converted(config, device):
    theirs_model = LlamaForCausalLM(config).to(device)
    ours_model = GPT(config).to(device)
    ours_model.load_state_dict(convert_weights(theirs_model.state_dict()))
    x = torch.randint(0, 10, (1, 4), device=device)
    print((ours_model(x) - theirs_model(x)["logits"]).abs().max())
'''

PARITY_TEST = PARITY.replace("def check_converted(", "def test_converted(")

# a tracing smoke test of a pytest module: it asserts nothing, it checks by running
TRACE_TEST = '''
import torch
from torch import fx


def test_fx_trace():
    for Block in (Pool2d, Pool3d):
        block = Block(2)
        fx.symbolic_trace(block)
    net = Linear(1, 1)
    with torch.no_grad():
        out = net(torch.randn(1, 1))
    print(out)
'''


def test_mld020_quiet_on_the_tests_of_a_pytest_module():
    assert _lines(PARITY_TEST, "tests/convert/test_parity.py") == []
    assert _lines(PARITY_TEST, "tests/parity_test.py") == []
    assert _lines(TRACE_TEST, "tests/test_wrappers.py") == []


def test_mld020_still_reads_an_evaluation_function_outside_a_test_module():
    assert _lines(PARITY_TEST, "scripts/check_parity.py")  # test_converted() asserts nothing: an evaluation
    assert _lines(PARITY_TEST.replace("print(", "assert 1e-4 > ("), "scripts/check_parity.py") == []


# precise BN: the helper runs the model as a bare statement to refresh BatchNorm statistics, which needs the
# training mode its caller left; a helper that keeps the outputs predicts
PRECISE_BN = {
    "bn_utils.py": '''
        import torch


        def refresh_bn_stats(model, loader, steps=100):
            for i, (x, _) in enumerate(loader):
                if i == steps:
                    break
                with torch.no_grad():
                    model(x)
    ''',
    "evaluate_seg.py": '''
        import torch
        from bn_utils import refresh_bn_stats
        from nets import SegNet


        def main(train_loader, val_loader):
            model = SegNet()
            model.load_state_dict(torch.load("seg.pt"))
            refresh_bn_stats(model, train_loader)
            model.eval()
            return model
    ''',
}


def test_mld020_quiet_when_handed_to_a_bn_statistics_refresh(tmp_path):
    assert project_findings(tmp_path, PRECISE_BN, "MLD020") == []


def test_mld020_fires_when_handed_to_a_helper_that_keeps_predictions(tmp_path):
    files = dict(PRECISE_BN)
    files["bn_utils.py"] = files["bn_utils.py"].replace("                    model(x)",
                                                        "                    preds = model(x)")
    files["bn_utils.py"] += "        return preds\n"
    files["evaluate_seg.py"] = files["evaluate_seg.py"].replace("refresh_bn_stats(model, train_loader)",
                                                                "preds = refresh_bn_stats(model, val_loader)")
    assert project_findings(tmp_path, files, "MLD020") != []


# a module bound at run time (`transformers = pytest.importorskip(...)`): `transformers.DataCollatorX(...)`
# builds a collator, it runs no model
COLLATOR = '''
import pytest
import torch
from torch.utils.data import DataLoader


def pretraining_helper(tokenizer, model, dataset):
    transformers = pytest.importorskip("transformers")
    collator = transformers.DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm_probability=0.15)
    eval_loader = DataLoader(dataset, batch_size=2, collate_fn=collator)
    with torch.no_grad():
        for batch in eval_loader:
            print(batch["input_ids"].shape)
    return eval_loader
'''


def test_mld020_quiet_on_a_class_of_a_module_bound_at_run_time():
    assert _lines(COLLATOR, "pretrain_helpers.py") == []


# a log-prob pass shared by the training step (autograd on) and the reference pass (autograd off), in a
# utility file that trains nothing itself
LOGPROB_UTILS = '''
import torch


def gather_logprobs(model, batches, use_grad=False):
    out = []
    context = torch.enable_grad() if use_grad else torch.no_grad()
    with context:
        for batch in batches:
            out.append(model(batch["input_ids"]).logits.log_softmax(-1))
    return out
'''


def test_mld020_quiet_on_a_log_prob_pass_that_can_turn_autograd_on():
    assert _lines(LOGPROB_UTILS, "rl/logprob_utils.py") == []
    assert _lines(LOGPROB_UTILS.replace("torch.enable_grad() if use_grad else ", ""), "rl/logprob_utils.py") == [6]


# an evaluation script that happens to be named like a pytest module: its test() / test_epoch() are called
EVAL_SCRIPT = '''
import torch
from nets import Net


def test_epoch(net, test_loader):
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (net(x).argmax(1) == y).sum().item()
    return correct


if __name__ == "__main__":
    net = Net()
    net.load_state_dict(torch.load("net.pt"))
    print(test_epoch(net, loader))
'''


def test_mld020_fires_in_an_evaluation_script_named_like_a_test_module():
    assert _lines(EVAL_SCRIPT, "test_net.py") != []
    assert _lines(EVAL_SCRIPT.replace("test_epoch", "test"), "test_net.py") != []


# autograd turned on unconditionally for an attack inside a robustness evaluation: still an evaluation
ROBUST_EVAL = '''
import torch


def robust_accuracy(model, test_loader, attack):
    correct = []
    for x, y in test_loader:
        with torch.enable_grad():
            x_adv = attack(model, x, y)
        with torch.no_grad():
            correct.append((model(x_adv).argmax(1) == y).float().cpu())
    return torch.cat(correct).mean()
'''


def test_mld020_fires_on_a_robustness_evaluation_that_enables_grad_for_its_attack():
    assert _lines(ROBUST_EVAL, "robustness.py") != []
