"""Check 4: every trainable parameter gets a finite, non-zero gradient and sits in the optimizer."""

from __future__ import annotations

from typing import Any

from .base import FAIL, PASS, Check, listed, rounded
from .cancelling import HARMLESS, LATE, cancelling, zero_only_at_start
from .session import Session

CHECK = Check("gradient_flow", "Gradient flow and optimizer coverage", (
    "karpathy-recipe/fails-silently", "goodfellow/broken-parts-adapt"))

def run(s: Session) -> Any:
    s.seeded()
    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model)
    model.zero_grad(set_to_none=True)
    s.loss(model, s.batch).backward()
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    groups: dict[str, list[str]] = {"no gradient": [], "all-zero gradient": [], "non-finite gradient": [],
                                    "not in optimizer": [], "frozen but in optimizer": []}
    norms: dict[str, float] = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            if id(p) in held:
                groups["frozen but in optimizer"].append(name)
            continue
        if id(p) not in held:
            groups["not in optimizer"].append(name)
        if p.grad is None:
            groups["no gradient"].append(name)
        elif not bool(p.grad.isfinite().all()):
            groups["non-finite gradient"].append(name)
        elif not bool(p.grad.any()):
            groups["all-zero gradient"].append(name)
        else:
            norms[name] = rounded(float(p.grad.norm()))
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    trainable = sum(1 for p in model.parameters() if p.requires_grad)
    cancelled = s.memo.setdefault("cancelled_biases", cancelling(model))  # what cancelled_biases(s) would measure
    late = zero_only_at_start(s, set(groups["all-zero gradient"]) - cancelled)
    groups["all-zero gradient"] = [n for n in groups["all-zero gradient"] if n not in cancelled and n not in late]
    failing = [k for k in ("no gradient", "all-zero gradient", "non-finite gradient", "not in optimizer") if groups[k]]
    details = [f"fail: {k}: {listed(v)}" for k, v in groups.items() if v and k in failing]
    if cancelled:
        details.append(f"info: {HARMLESS}: {listed(sorted(cancelled))}")
    if late:
        details.append(f"info: {LATE}: {listed(sorted(late))}")
    if frozen:
        details.append(f"info: frozen parameters: {listed(frozen)}")
    if groups["frozen but in optimizer"]:
        # settled in tests/diagnostics/test_gradient_facts.py: torch's optimizers skip a tensor whose .grad is None
        details.append(f"info: {len(groups['frozen but in optimizer'])} frozen tensors are in the optimizer; it skips "
                       "them while their .grad is None (a stale or zeroed .grad, from freezing after a backward or "
                       "zero_grad(set_to_none=False), lets weight decay and momentum move them)")
    if failing:
        status = FAIL
        summary = "; ".join(f"{len(groups[k])} of {trainable} trainable tensors: {k} ({listed(groups[k], 3)})" for k in failing)
    else:
        status, summary = PASS, f"all {trainable} trainable tensors get finite non-zero gradients and are optimised"
        if cancelled or late:
            summary = (f"all {trainable} trainable tensors are optimised and get finite gradients, non-zero but for "
                       f"{len(cancelled) + len(late)} that are zero by construction (harmless; see details)")
    if trainable == 0:
        status, summary = FAIL, "the model has no trainable parameters"
    return CHECK.result(
        status, summary, details=details,
        measured={"trainable_tensors": trainable, "frozen_tensors": len(frozen),
                  **{k.replace(" ", "_"): len(v) for k, v in groups.items()}},
        expected={"every trainable tensor": "finite non-zero gradient and held by the optimizer"},
        series={"grad_norm": norms},
        meaning="A tensor without a gradient is off the loss path (a detach, .item(), no_grad or an unused module); "
                "one missing from the optimizer never changes although its gradient is computed.",
        next_test="Search the forward pass for .detach(), .item(), .numpy() and torch.no_grad between the layer and "
                  "the loss; build the optimizer after the model is final.")
