"""Check 9: name the module where NaN/Inf is born, with the frames just before it."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from .base import FAIL, PASS, Check, rounded
from .device import NonFiniteOutput
from .one_batch import RUN_KEY, real_curve
from .session import Session
from .tensors import call_model, tensors_in

CHECK = Check("first_nonfinite", "First non-finite value", (
    "bekman/detect-nan-inf-per-module", "bekman/look-at-previous-frames"))

# every submodule's output was finite: the NaN comes from the model's own forward code
ROOT_BORN = "the model's output is NaN/Inf while every submodule's output is finite: born in its own forward code"
FRAMES = 21  # frames kept before the first non-finite one, as in Bekman's DebugUnderflowOverflow


class Tracer:
    """Forward hooks on every module keeping a rolling buffer of per-module abs-min/abs-max."""

    def __init__(self, model: Any) -> None:
        self.frames: deque = deque(maxlen=FRAMES)
        self.hit: dict[str, Any] | None = None
        self.before: list[dict[str, Any]] = []
        self.step = 0
        # before any other hook: the session's NaN guard (off the CPU) raises in its own
        self.handles = [m.register_forward_hook(self._hook(name or "(model)", type(m).__name__), prepend=True)
                        for name, m in model.named_modules()]

    def _hook(self, name: str, kind: str) -> Any:
        def hook(_module: Any, inputs: Any, output: Any) -> None:
            if self.hit is not None:
                return
            frame = {"step": self.step, "module": name, "type": kind,
                     "input": _extent(inputs), "output": _extent(output)}
            if not frame["output"]["finite"]:
                self.hit = {**frame, "born_here": frame["input"]["finite"]}
                self.before = list(self.frames)
            self.frames.append(frame)
        return hook

    def close(self) -> None:
        for h in self.handles:
            h.remove()


def run(s: Session) -> Any:
    s.seeded()
    model = s.fresh_model(train=True)
    tracer = Tracer(model)
    try:
        where = _one_step(s, model, tracer)
        curve = real_curve(s)
        raised = s.run_errors.get(RUN_KEY)
        if where is None and raised:
            return CHECK.skip(f"the training step raised {raised['type']} at step {raised['step']} before any "
                              "NaN/Inf was seen; see overfit_one_batch")
        if where is None and not all(math.isfinite(v) for v in curve):
            where = _replay(s, tracer, len(curve))
    finally:
        tracer.close()
    if where is None:
        return CHECK.result(PASS, "forward, loss and backward stay finite, at init and through the overfit run",
                            measured={"nonfinite": False}, expected={"nonfinite": False},
                            meaning="No NaN or Inf appeared anywhere we looked.",
                            next_test="None needed; if NaN appears later in real training, rerun with that batch.")
    details = [f"frame {f['step']}:{f['module']} ({f['type']}): in |x| {f['input']['absmin']}..{f['input']['absmax']}, "
               f"out {f['output']['absmin']}..{f['output']['absmax']}" for f in tracer.before[-6:]]
    return CHECK.result(
        FAIL, where, details=details,
        measured={"first": tracer.hit, "frames_before": tracer.before} if tracer.hit else {"where": where},
        expected={"nonfinite": False},
        meaning="NaN spreads to everything after it; the module that first produces it, and the abs-max "
                "climbing in the frames before, show whether it is an overflow, a log/division of 0, or a bad input.",
        next_test="Read the frames before the culprit: abs-min 0 feeding log/div means a missing eps; abs-max "
                  "climbing means overflow; then torch.autograd.set_detect_anomaly(True) for backward NaNs.")


def _one_step(s: Session, model: Any, tracer: Tracer) -> str | None:
    try:
        output = call_model(model, s.batch[0])
    except NonFiniteOutput:  # off the CPU the session stops a NaN output before the loss
        return _describe(tracer.hit) if tracer.hit is not None else ROOT_BORN
    if tracer.hit is not None:
        return _describe(tracer.hit)
    loss = s.output_loss(output, s.batch[1])
    if not bool(loss.isfinite().all()):
        value = float(loss.detach().reshape(-1)[0])
        return f"every module output is finite but the loss is {value}: it is born inside loss_fn"
    loss.backward()
    bad = [n for n, p in model.named_parameters() if p.grad is not None and not bool(p.grad.isfinite().all())]
    if bad:
        return f"forward and loss are finite but the gradients of {', '.join(bad[:4])} are not: born in backward"
    return None


def _replay(s: Session, tracer: Tracer, steps: int) -> str:
    """The overfit run went non-finite: replay it with the hooks armed to find where."""
    tracer.close()
    s.seeded()
    model = s.fresh_model(train=True)
    replay = Tracer(model)
    optimizer = s.make_optimizer(model)
    try:
        for step in range(steps):
            replay.step = step
            try:
                value = s.step(model, s.batch, optimizer)
            except NonFiniteOutput:  # off the CPU: the model's output turned NaN, stopped before the loss
                if replay.hit is None:
                    return f"at training step {step}: {ROOT_BORN}"
                break
            if replay.hit is not None or not math.isfinite(value):
                break
    finally:
        replay.close()
    tracer.hit, tracer.before = replay.hit, replay.before
    if replay.hit is not None:
        return f"at training step {replay.hit['step']}: " + _describe(replay.hit)
    return f"finite at init, but the loss became non-finite at training step {steps - 1} (the update diverged)"


def _describe(hit: dict[str, Any]) -> str:
    where = f"{hit['module']} ({hit['type']})"
    if hit["born_here"]:
        return f"{where} is the first module to output NaN/Inf from finite inputs"
    return f"{where} received non-finite input from code between modules (a functional op in a parent's forward)"


def _extent(value: Any) -> dict[str, Any]:
    finite, lo, hi = True, math.inf, 0.0
    for _, t in tensors_in(value):
        if not t.is_floating_point() or t.numel() == 0:
            continue
        a = t.detach().abs()
        finite = finite and bool(a.isfinite().all())
        ok = a[a.isfinite()]
        if ok.numel():
            lo, hi = min(lo, float(ok.min())), max(hi, float(ok.max()))
    return {"finite": finite, "absmin": rounded(lo) if lo != math.inf else None, "absmax": rounded(hi)}
