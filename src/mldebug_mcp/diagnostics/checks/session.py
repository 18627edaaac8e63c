"""The shared state of one diagnose run: pristine model copies, the step, cached training curves."""

from __future__ import annotations

import copy
import inspect
import itertools
import math
import os
import time
from typing import Any

from .batch_format import as_given, split_batch
from .device import loss_on, refuse_nonfinite
from .model_loss import computes_own_loss, loss_in
from .result import user_traceback
from .side_state import SideState
from .spec import DebugSpec
from .tensors import call_model, primary, to_device

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LR = 3e-4  # Karpathy's "Adam is safe" default [karpathy-recipe/adam-is-safe]


class Session:
    """Everything a check needs, built once: never mutates the user's model."""

    def __init__(self, spec: DebugSpec, *, seed: int = 0, steps: int = 200, device: str | None = None,
                 baseline_steps: int = 50) -> None:
        import torch

        self.torch = torch
        self.spec = spec
        self.seed = seed
        # Noise and permutations must not replay the user's own data generator (often seeded 0 too).
        self.probe_seed = seed * 1_000_003 + 424_242
        self.steps = steps
        self.baseline_steps = min(baseline_steps, steps)
        self.device = _usable_device(device or spec.device or _model_device(spec.model))
        _materialise_lazy(spec)
        self._pristine = {k: v.detach().clone() for k, v in spec.model.state_dict().items()}
        self._side_state = SideState(spec.model, spec.train_step, spec.loss_fn)  # a center loss's centres, say
        # Checks see (inputs, targets); a dict batch (Hugging Face) is handed back as a dict to train_step.
        self.dict_batch = isinstance(spec.batch, dict)
        self.model_loss = computes_own_loss(spec.loss_fn)
        self.loss_fn = loss_on(spec.loss_fn, self.device)  # a loss module's class weights follow the model
        # the spec's tensors were made elsewhere: a train_step may make more there (see preflight)
        self.moved = str(self.device) != _model_device(spec.model)
        # Off the CPU, a loss fed NaN can fire a device-side assert (binary_cross_entropy does), which leaves
        # the CUDA context unusable for every later check; CPU raises a readable error instead. There, the
        # model copies refuse a NaN output before any loss sees it (a diverged run then ends as on CPU).
        self.guard_nonfinite = self.device.type != "cpu"
        self.context_lost: str | None = None  # the check whose device-side assert made the GPU context unusable
        self.batch = to_device(split_batch(spec.batch), self.device)
        self.val_batch = to_device(split_batch(spec.val_batch), self.device) if spec.val_batch is not None else None
        self._curves: dict[str, list[float]] = {}
        self._paused: dict[str, tuple[Any, Any, Any]] = {}  # resumable runs: (model, optimizer, side state) by key
        self.run_errors: dict[str, dict[str, Any]] = {}  # curve key -> the exception that ended that run
        self.run_seconds: dict[str, float] = {}  # curve name -> seconds spent training it, all rates together
        self.memo: dict[str, Any] = {}  # what several checks share, read once (contract, one-batch runs)
        self.forward_failed = False  # set when the model raised on the batch (see preflight)

    # --- models -------------------------------------------------------------------------------
    def fresh_model(self, train: bool = True) -> Any:
        """A copy of the model as the user built it, on the session's device."""
        try:
            model = copy.deepcopy(self.spec.model)
        except Exception:  # some modules refuse deepcopy: reuse the original; restore() puts it back
            model = self.spec.model
        model.load_state_dict(self._pristine)
        self._side_state.restore()
        model.to(self.device)
        model.train(train)
        if self.guard_nonfinite and model is not self.spec.model:
            model.register_forward_hook(refuse_nonfinite)
        return model

    def restore(self) -> None:
        """Put the user's model back as it was (it is trained in place when deepcopy fails)."""
        self.spec.model.load_state_dict(self._pristine)
        self._side_state.restore()

    def seeded(self, offset: int = 0) -> None:
        self.torch.manual_seed(self.seed + offset)

    def logits(self, model: Any, inputs: Any) -> Any:
        return self.primary(call_model(model, inputs))

    def primary(self, output: Any) -> Any:
        """The logits in a model's output (see tensors.primary), knowing a classifier's class count."""
        return primary(output, self.spec.num_classes if self.spec.task == "classification" else None)

    def loss(self, model: Any, batch: tuple) -> Any:
        return self.output_loss(call_model(model, batch[0]), batch[1])

    def output_loss(self, output: Any, targets: Any) -> Any:
        """The loss of a model output: the model's own (`.loss`) or loss_fn(output, targets)."""
        return loss_in(output) if self.model_loss else self.loss_fn(output, targets)

    def user_step(self, model: Any, batch: tuple, optimizer: Any) -> Any:
        """The user's train_step, given the batch in the layout the spec used."""
        return self.spec.train_step(model, as_given(batch, self.dict_batch), optimizer)

    # --- optimisation ---------------------------------------------------------------------------
    def make_optimizer(self, model: Any, lr_factor: float = 1.0) -> Any:
        """The spec's optimizer over this model copy's parameters (default Adam, lr 3e-4), its learning
        rates multiplied by lr_factor."""
        factory = self.spec.optimizer
        if factory is None:
            optimizer = self.torch.optim.Adam(model.parameters(), lr=DEFAULT_LR)
        elif isinstance(factory, self.torch.optim.Optimizer):
            # An instance is tied to the user's tensors: rebuild its class over this copy.
            optimizer = type(factory)(model.parameters(), **_constructor_settings(factory))
        else:
            optimizer = factory(model.parameters())
        groups = getattr(optimizer, "param_groups", None) or [{}]
        self.memo.setdefault("base_lr", _positive_float(groups[0].get("lr")))
        if lr_factor != 1.0:
            for group in optimizer.param_groups:
                group["lr"] = group["lr"] * lr_factor
        return optimizer

    def step(self, model: Any, batch: tuple, optimizer: Any) -> float:
        """One training step: the user's own train_step when given, else the textbook one."""
        if self.spec.train_step is not None:
            loss = self.user_step(model, batch, optimizer)
            if loss is None:  # a step that returns nothing: measure the loss it left behind
                with self.torch.no_grad():
                    loss = self.loss(model, batch)
        elif _wants_closure(optimizer):  # LBFGS evaluates the loss itself, as often as its line search needs
            def closure() -> Any:
                optimizer.zero_grad(set_to_none=True)
                value = self.loss(model, batch)
                value.backward()
                return value

            loss = optimizer.step(closure)
        else:
            optimizer.zero_grad(set_to_none=True)
            loss = self.loss(model, batch)
            loss.backward()
            optimizer.step()
        return float(loss.detach() if hasattr(loss, "detach") else loss)

    def train_curve(self, name: str, batch: tuple, steps: int, stop_below: float | None = None,
                    floor: float = 0.0, lr_factor: float = 1.0, resumable: bool = False) -> list[float]:
        """Losses of up to `steps` steps on one batch from the pristine model, cached by name and rate.

        Stops early at a non-finite loss, or once the loss has covered all but stop_below of the way
        from the first one down to `floor` (the lowest loss the loss function allows). A resumable run
        keeps its model and optimizer, so that asking for more steps later continues it.
        """
        key = f"{name}@{lr_factor:g}"
        started = time.perf_counter()
        try:
            return self._train_curve(key, batch, steps, stop_below, floor, lr_factor, resumable)
        finally:
            self.run_seconds[name] = self.run_seconds.get(name, 0.0) + time.perf_counter() - started

    def _train_curve(self, key: str, batch: tuple, steps: int, stop_below: float | None, floor: float,
                     lr_factor: float, resumable: bool) -> list[float]:
        curve = self._curves.get(key, [])
        if curve and (len(curve) >= steps or _stopped(curve, stop_below, floor)):
            return curve[:steps]
        state = self._paused.pop(key, None) if curve else None
        if state is None:
            self.seeded()
            model = self.fresh_model(train=True)
            state = (model, self.make_optimizer(model, lr_factor), None)
            curve = []
        model, optimizer, side = state
        if side is not None:  # the run's own side state (centres, say), as it was when the run paused
            self._side_state.load(side)
        while len(curve) < steps:
            try:
                curve.append(self.step(model, batch, optimizer))
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as exc:  # a step that raises ends its run like a divergence, and is kept
                self.run_errors[key] = {"step": len(curve), **user_traceback(exc, _OWN_DIR)}
                curve.append(math.nan)
            if _stopped(curve, stop_below, floor):
                break
        self._curves[key] = curve
        # The user's own model (when it refused deepcopy) is reset by every fresh_model: never paused.
        if resumable and model is not self.spec.model and not _stopped(curve, stop_below, floor):
            self._paused[key] = (model, optimizer, self._side_state.capture())
        return curve


def _constructor_settings(optimizer: Any) -> dict[str, Any]:
    """The optimizer's defaults that its class's constructor accepts (AdamW keeps an Adam-only
    'decoupled_weight_decay' in its defaults, which AdamW(...) refuses)."""
    parameters = inspect.signature(type(optimizer).__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return dict(optimizer.defaults)
    return {k: v for k, v in optimizer.defaults.items() if k in parameters}


def _positive_float(value: Any) -> float | None:
    try:
        return float(value) if value is not None and float(value) > 0 else None
    except (TypeError, ValueError, RuntimeError):
        return None


def _usable_device(name: str) -> Any:
    """The torch.device, or SpecError when this machine cannot run it (no silent CPU fallback)."""
    import torch

    from .spec import SpecError

    try:
        device = torch.device(name)
    except (RuntimeError, TypeError) as exc:
        raise SpecError(f"device {name!r} is not a torch device name ({exc}); use cpu, cuda, cuda:N or mps") from exc
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SpecError(f"device {name!r} asked for CUDA but torch.cuda.is_available() is False here; use --device cpu")
    if device.type == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise SpecError(f"device {name!r} asked for MPS, which this machine lacks; use --device cpu")
    return device


def _wants_closure(optimizer: Any) -> bool:
    """Whether the optimizer's step requires a closure (LBFGS) rather than taking an optional one."""
    try:
        closure = inspect.signature(type(optimizer).step).parameters.get("closure")
    except (TypeError, ValueError):
        return False
    return closure is not None and closure.default is inspect.Parameter.empty


def _materialise_lazy(spec: DebugSpec) -> None:
    """Lazy modules (nn.LazyLinear) get their weights at the first forward; until then no copy or state can be
    taken. One forward on the spec's batch does what the user's first training step would."""
    import torch

    from .spec import SpecError

    tensors = itertools.chain(spec.model.parameters(), spec.model.buffers())
    if not any(torch.nn.parameter.is_lazy(t) for t in tensors):
        return
    inputs = to_device(split_batch(spec.batch)[0], _model_device(spec.model))
    try:
        with torch.no_grad():
            call_model(spec.model, inputs)
    except Exception as exc:  # noqa: BLE001 - said as a spec problem, with the model's own message
        raise SpecError(f"the model has lazy modules whose weights do not exist yet, and the forward on the spec's "
                        f"batch that would create them raised {type(exc).__name__}: {exc}; call the model once on "
                        f"a batch before handing it to diagnose") from exc


def _model_device(model: Any) -> str:
    first = next(itertools.chain(model.parameters(), model.buffers()), None)
    return str(first.device) if first is not None else "cpu"


def _stopped(curve: list[float], stop_below: float | None, floor: float = 0.0) -> bool:
    last = curve[-1]
    return not math.isfinite(last) or (stop_below is not None and last - floor <= stop_below * (curve[0] - floor))
