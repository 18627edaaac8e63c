"""What a run on another device than the spec's needs, shown on CPU (test_cuda_device.py runs it on a GPU).

A GPU run found these (benchmarks/diagnose_device.py): a loss module's class weights left on the CPU, a
train_step making CPU tensors called a model that cannot learn, and a device-side assert that broke every
check after it. Here each mechanism is driven on CPU: the 'meta' device stands in for a second device,
and the session's flags are set by hand where only a GPU would set them.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import run_checks
from mldebug_mcp.diagnostics.checks import device as moves
from mldebug_mcp.diagnostics.checks.preflight import forward_failure
from mldebug_mcp.diagnostics.checks.session import Session
from mldebug_mcp.diagnostics.checks.spec import as_spec

from .builders import classifier

META = torch.device("meta")
MISMATCH = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def test_a_loss_module_with_class_weights_is_copied_to_the_device_and_the_users_stays():
    weights = torch.tensor([1.0, 2.0, 0.5])
    loss = nn.CrossEntropyLoss(weight=weights)
    moved = moves.loss_on(loss, META)
    assert moved is not loss and moved.weight.device == META
    assert loss.weight.device.type == "cpu"


def test_a_loss_already_on_the_device_and_a_plain_function_pass_unchanged():
    loss = nn.CrossEntropyLoss(weight=torch.ones(3))
    assert moves.loss_on(loss, torch.device("cpu")) is loss
    assert moves.loss_on(F.cross_entropy, META) is F.cross_entropy


def test_a_partial_gets_its_tensor_arguments_moved():
    loss = functools.partial(F.cross_entropy, weight=torch.ones(3), label_smoothing=0.1)
    moved = moves.loss_on(loss, META)
    assert moved.keywords["weight"].device == META and moved.keywords["label_smoothing"] == 0.1
    assert moved.func is F.cross_entropy and loss.keywords["weight"].device.type == "cpu"


def test_device_messages_are_told_apart():
    assert moves.is_device_mismatch(MISMATCH)
    assert moves.is_device_mismatch("Expected all tensors to be on the same device, but got weight is on cpu, "
                                    "different from other tensors on cuda:0")
    assert not moves.is_device_mismatch("mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)")
    assert moves.is_device_assert("CUDA error: device-side assert triggered")
    assert not moves.is_device_assert("CUDA out of memory")


def _nan_model() -> nn.Module:
    model = nn.Linear(4, 1)
    with torch.no_grad():
        model.weight.fill_(math.nan)
    return model


def _guarded_session(**spec) -> Session:
    session = Session(as_spec(dict(model=_nan_model(), batch=(torch.ones(8, 4), torch.ones(8, 1)), task="custom",
                                   **spec)))
    assert not session.guard_nonfinite  # on CPU the user's loss sees NaN, and raises or returns NaN itself
    session.guard_nonfinite = True  # as off the CPU, where a loss fed NaN can fire a device-side assert
    return session


def test_with_the_guard_a_nan_output_never_reaches_the_users_loss():
    seen = []

    def bce(output, target):
        seen.append(output)
        return F.binary_cross_entropy(torch.sigmoid(output), target)

    session = _guarded_session(loss_fn=bce)
    with pytest.raises(moves.NonFiniteOutput):
        session.loss(session.fresh_model(), session.batch)
    assert not seen
    assert not session.spec.model._forward_hooks  # the user's model carries no hook of ours


def test_with_the_guard_a_diverged_run_ends_like_a_raising_loss_on_cpu():
    seen = []

    def train_step(model, batch, optimizer):
        optimizer.zero_grad()
        out = model(batch[0])
        seen.append(out)
        loss = F.mse_loss(out, batch[1])
        loss.backward()
        optimizer.step()
        return loss

    session = _guarded_session(loss_fn=F.mse_loss, train_step=train_step)
    curve = session.train_curve("real", session.batch, 5)
    assert len(curve) == 1 and math.isnan(curve[0]) and not seen
    assert session.run_errors["real@1"]["type"] == "NonFiniteOutput"


def test_first_nonfinite_names_where_the_nan_is_born_with_the_guard_on():
    from mldebug_mcp.diagnostics.checks import first_nonfinite

    session = _guarded_session(loss_fn=F.mse_loss)
    result = first_nonfinite.run(session)
    assert result.status == "fail" and "first module to output NaN" in result.summary


def _step_raising(message: str):
    def train_step(model, batch, optimizer):
        raise RuntimeError(message)
    return train_step


def test_a_train_step_making_tensors_off_the_device_is_reported_once_with_the_fix():
    session = Session(as_spec(classifier(train_step=_step_raising(MISMATCH))))
    session.moved = True  # as when the spec was built on CPU and the run asked for cuda
    from mldebug_mcp.diagnostics.checks import loss_at_init

    result = forward_failure(session, loss_at_init.CHECK)
    assert result is not None and result.status == "fail"
    assert "train_step" in result.summary and "device=x.device" in result.summary


@pytest.mark.parametrize("moved, message", [(False, MISMATCH), (True, "some other failure of the step")])
def test_the_step_preflight_stays_out_of_other_failures(moved, message):
    session = Session(as_spec(classifier(train_step=_step_raising(message))))
    session.moved = moved
    from mldebug_mcp.diagnostics.checks import loss_at_init

    assert forward_failure(session, loss_at_init.CHECK) is None


def test_a_device_side_assert_stops_the_checks_after_it(monkeypatch, single_thread):
    from mldebug_mcp.diagnostics.checks import gradient_flow

    def assert_fires(_session):
        raise RuntimeError("CUDA error: device-side assert triggered")

    monkeypatch.setattr(gradient_flow, "run", assert_fires)
    report = run_checks(classifier(), steps=30)
    by_id = {c["id"]: c for c in report["checks"]}
    ids = [c["id"] for c in report["checks"]]
    assert by_id["gradient_flow"]["status"] == "error" and "--device cpu" in by_id["gradient_flow"]["summary"]
    after = ids[ids.index("gradient_flow") + 1:]
    assert after and all(by_id[c]["status"] == "skipped" and "device-side assert in gradient_flow" in
                         by_id[c]["summary"] for c in after)
    assert all(by_id[c]["status"] != "skipped" or "device-side" not in by_id[c]["summary"]
               for c in ids[:ids.index("gradient_flow")])


def test_an_ordinary_check_error_does_not_stop_the_others(monkeypatch, single_thread):
    from mldebug_mcp.diagnostics.checks import gradient_flow

    def breaks(_session):
        raise RuntimeError("something else")

    monkeypatch.setattr(gradient_flow, "run", breaks)
    report = run_checks(classifier(), steps=30)
    assert not any("device-side" in c["summary"] for c in report["checks"])


def test_a_device_side_assert_in_the_first_call_is_explained_by_the_same_call_on_cpu(single_thread):
    calls = []

    def loss_fn(output, targets):  # the GPU's assert first, then what CPU says about the same call
        calls.append(output.device.type)
        if len(calls) == 1:
            raise RuntimeError("CUDA error: device-side assert triggered")
        raise IndexError("Target 4 is out of bounds.")

    report = run_checks(classifier(loss_fn=loss_fn), steps=30)
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert len(failed) == 1
    assert "device-side assert" in failed[0]["summary"]
    assert "on CPU the same call raises IndexError: Target 4 is out of bounds" in failed[0]["summary"]
    others = [c for c in report["checks"] if c is not failed[0]]
    assert others and all(c["status"] == "skipped" and "device-side assert in" in c["summary"] for c in others)
    assert len(calls) == 2
