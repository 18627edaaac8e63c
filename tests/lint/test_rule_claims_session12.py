"""What the rules added in the twelfth session say happens, checked by running it on CPU.

MLD075 (torch's clip on gradients a GradScaler still scales) claims that the clip then fires on every step and cuts
each update to max_norm / scale; a PyTorch that behaved otherwise would fail here before the rule's text misleads
anyone.
"""

from __future__ import annotations

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.registry import RULES

torch = pytest.importorskip("torch")
RULE = {rule.code: rule for rule in RULES}


def _fires(source: str, code: str) -> bool:
    return any(f.code == code for f in lint_source(source, "snippet.py", LintSettings(select=(code,))))


def _one_amp_step(unscale_first: bool) -> tuple[float, float]:
    """The size of one SGD update and the norm the clip measured, with a GradScaler at its default scale."""
    if not hasattr(torch.amp, "GradScaler"):
        pytest.skip("torch.amp.GradScaler needs torch 2.3 or newer")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")  # init_scale 2**16, as on CUDA
    before = model.weight.detach().clone()
    loss = torch.nn.functional.mse_loss(model(torch.randn(32, 4)), torch.randn(32, 1))
    scaler.scale(loss).backward()
    if unscale_first:
        scaler.unscale_(optimizer)
    measured = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    return (model.weight.detach() - before).norm().item(), measured.item()


def test_mld075_a_clip_before_unscale_measures_the_scaled_norm_and_shrinks_the_update_by_the_scale():
    right_update, true_norm = _one_amp_step(unscale_first=True)
    wrong_update, scaled_norm = _one_amp_step(unscale_first=False)
    assert true_norm < 1.0, "the true gradient is within max_norm: a right clip leaves it alone"
    assert scaled_norm == pytest.approx(true_norm * 2**16, rel=1e-4), "the clip sees the norm times the scale"
    # the wrong clip cuts the gradient to norm 1 while it is 65536 times too large: the update shrinks that much
    assert wrong_update < right_update / 10_000
    assert _fires(RULE["MLD075"].BAD, "MLD075") and not _fires(RULE["MLD075"].GOOD, "MLD075")


def test_mld002_ctc_loss_reads_its_input_as_log_probabilities_and_falls_without_bound_on_logits():
    torch.manual_seed(0)
    logits = torch.randn(12, 2, 5)  # (T, B, C)
    targets = torch.tensor([[1, 2, 3], [2, 4, 1]])
    lengths, target_lengths = torch.full((2,), 12), torch.full((2,), 3)
    right = torch.nn.functional.ctc_loss(logits.log_softmax(-1), targets, lengths, target_lengths)
    raw = torch.nn.functional.ctc_loss(logits, targets, lengths, target_lengths)
    assert right.item() > 0 and raw.item() < 0, "on raw logits the 'negative log-likelihood' is not even positive"
    # adding a constant to every logit changes no probability, yet the raw-logit 'loss' falls with it: by 10 per frame,
    # 12 frames over 3 target tokens (the default reduction divides by the target length)
    shifted = torch.nn.functional.ctc_loss(logits + 10.0, targets, lengths, target_lengths)
    assert shifted.item() == pytest.approx(raw.item() - 40.0, abs=1e-3)
    assert torch.nn.functional.ctc_loss((logits + 10.0).log_softmax(-1), targets, lengths,
                                        target_lengths).item() == pytest.approx(right.item(), rel=1e-5)


def test_mld002_kl_div_on_probabilities_is_not_the_divergence():
    torch.manual_seed(0)
    p, q = torch.softmax(torch.randn(4, 6), -1), torch.softmax(torch.randn(4, 6), -1)
    true_kl = (q * (q.log() - p.log())).sum(-1).mean()
    assert torch.nn.functional.kl_div(p.log(), q, reduction="batchmean").item() == pytest.approx(true_kl.item(), rel=1e-5)
    wrong = torch.nn.functional.kl_div(p, q, reduction="batchmean")
    assert wrong.item() != pytest.approx(true_kl.item(), rel=1e-2)
    # with probabilities as input it is not even zero when the two distributions are the same
    assert torch.nn.functional.kl_div(q, q, reduction="batchmean").item() < -0.5


def test_mld076_a_schedule_never_stepped_keeps_its_first_rate_and_a_linear_warmup_trains_nothing():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    # transformers' get_linear_schedule_with_warmup is this LambdaLR: the rate rises from 0 over the warmup steps
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, step / 100))
    assert optimizer.param_groups[0]["lr"] == 0.0, "building the schedule sets the rate to its first value"
    before = model.weight.detach().clone()
    for _ in range(5):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1)).backward()
        optimizer.step()  # never warmup.step()
    assert torch.equal(model.weight.detach(), before), "at rate 0 the weights never move"
    assert warmup.last_epoch == 0
    # a decay that is never stepped never decays
    decay_optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.optim.lr_scheduler.StepLR(decay_optimizer, step_size=1, gamma=0.5)
    for _ in range(3):
        decay_optimizer.step()
    assert decay_optimizer.param_groups[0]["lr"] == 0.1
    assert _fires(RULE["MLD076"].BAD, "MLD076") and not _fires(RULE["MLD076"].GOOD, "MLD076")


def test_mld076_leaves_a_configuration_module_alone():
    config = (
        "import torch\n"
        "model = build_model()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)  # read by the training script\n"
    )
    assert not _fires(config, "MLD076")
    assert _fires(config + "for x in data:\n    model(x).sum().backward()\n    optimizer.step()\n", "MLD076")


def test_mld024_torch_dropout_p_is_the_probability_of_dropping_so_a_keep_probability_drops_most_units():
    torch.manual_seed(0)
    keep_prob = 0.8
    out = torch.nn.Dropout(keep_prob).train()(torch.ones(100_000))
    dropped = (out == 0).float().mean().item()
    assert dropped == pytest.approx(0.8, abs=0.01), "80% of the units are zeroed, not 20%"
    assert out.max().item() == pytest.approx(1 / (1 - keep_prob)), "survivors are scaled by 5, not by 1.25"
    meant = torch.nn.Dropout(1 - keep_prob).train()(torch.ones(100_000))
    assert (meant == 0).float().mean().item() == pytest.approx(0.2, abs=0.01)
    assert _fires(RULE["MLD024"].BAD, "MLD024") and not _fires(RULE["MLD024"].GOOD, "MLD024")


def test_mld045_layers_in_a_plain_list_are_missing_from_parameters_and_state_dict_and_never_train():
    class Plain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [torch.nn.Linear(3, 3) for _ in range(2)]
            self.head = torch.nn.Linear(3, 1)

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    torch.manual_seed(0)
    model = Plain()
    assert sum(p.numel() for p in model.parameters()) == 4, "only the head's 3 weights and 1 bias are registered"
    assert not any(key.startswith("blocks") for key in model.state_dict()), "a checkpoint would not save the blocks"
    before = model.blocks[0].weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.randn(8, 3)).pow(2).mean().backward()
    assert model.blocks[0].weight.grad is not None, "the gradient reaches the block..."
    optimizer.step()
    assert torch.equal(model.blocks[0].weight.detach(), before), "...but the optimiser never updates it"
    assert _fires(RULE["MLD045"].BAD, "MLD045") and not _fires(RULE["MLD045"].GOOD, "MLD045")


def test_mld045_a_file_whose_classes_name_each_other_as_bases_is_still_linted():
    cyclic = (
        "import torch.nn as nn\n"
        "class A(B):\n"
        "    def __init__(self):\n"
        "        self.layers = [nn.Linear(2, 2)]\n"
        "class B(A):\n"
        "    pass\n"
    )
    assert [f.code for f in lint_source(cyclic, "cyclic.py")] == []  # not MLD000 "nested too deeply"
    via_local_base = "import torch.nn as nn\nclass Base(nn.Module):\n    pass\n" + cyclic.replace("(B)", "(Base)")
    assert _fires(via_local_base, "MLD045")
