"""One-line bug mutations of the clean setups, each tagged with the diagnose check meant to catch it.

A mutation replaces one exact fragment, which occurs once in its setup's source, with a
one-line replacement. `mutated_source` applies it; `load_spec` execs a (possibly mutated)
setup source as a fresh module and returns its `debug_spec(seed)`.

    from benchmarks.diagnose_setups.mutations import MUTATIONS, load_spec, mutated_source
    for m in MUTATIONS:
        spec = load_spec(m.setup, mutated_source(m), seed=0)
        ...  # run diagnose on spec; expect a finding from check m.check
"""

from __future__ import annotations

import hashlib
import itertools
import linecache
import types
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETUPS = ("mlp_classifier", "cnn_bn", "causal_lm", "regression")
CHECKS = (
    "batch_sanity",
    "loss_at_init",
    "input_dependence",
    "gradient_flow",
    "overfit_one_batch",
    "parameter_updates",
    "update_ratio",
    "activations",
    "first_nonfinite",
    "batch_independence",
    "causality",
    "odd_shapes",
    "train_eval_modes",
    "leakage",
    "gradcheck",
)


@dataclass(frozen=True)
class Mutation:
    name: str
    setup: str  # module stem of the setup, e.g. "mlp_classifier"
    find: str  # exact fragment, occurring once in the setup's source, on one line
    replace: str  # its replacement, also on one line
    check: str  # id of the diagnose check meant to catch the bug
    description: str


MUTATIONS: tuple[Mutation, ...] = (
    # --- mlp_classifier ---------------------------------------------------------------
    Mutation(
        "mlp_double_softmax",
        "mlp_classifier",
        "return self.head(h)",
        "return self.head(h).softmax(dim=-1)",
        "overfit_one_batch",
        "The model returns probabilities and cross_entropy applies log-softmax again, so the loss cannot fall far.",
    ),
    Mutation(
        "mlp_detached_hidden",
        "mlp_classifier",
        "h = self.act2(self.fc2(h))",
        "h = self.act2(self.fc2(h.detach()))",
        "gradient_flow",
        "The first hidden layer's output is detached, so fc1 never receives a gradient.",
    ),
    Mutation(
        "mlp_optimizer_head_only",
        "mlp_classifier",
        "return torch.optim.Adam(params, lr=LEARNING_RATE)",
        "return torch.optim.Adam(list(params)[-2:], lr=LEARNING_RATE)",
        "gradient_flow",
        "The optimizer is given only the head's weight and bias; the hidden layers are never updated.",
    ),
    Mutation(
        "mlp_shuffled_labels",
        "mlp_classifier",
        "return inputs, labels",
        "return inputs, labels[torch.randperm(labels.numel(), generator=gen)]",
        "input_dependence",
        "Labels are shuffled relative to the inputs when the batch is built, so nothing links input to target.",
    ),
    Mutation(
        "mlp_log_of_relu",
        "mlp_classifier",
        "h = self.act2(self.fc2(h))",
        "h = torch.log(self.act2(self.fc2(h)))",
        "first_nonfinite",
        "torch.log of a ReLU output gives -inf wherever the unit is off, and NaN/inf logits follow.",
    ),
    Mutation(
        "mlp_dead_relu_bias",
        "mlp_classifier",
        "nn.init.zeros_(self.fc1.bias)",
        "nn.init.constant_(self.fc1.bias, -10.0)",
        "activations",
        "A large negative bias init keeps every first-layer ReLU off on every sample (dead units).",
    ),
    Mutation(
        "mlp_head_too_few_classes",
        "mlp_classifier",
        "self.head = nn.Linear(hidden, num_classes)",
        "self.head = nn.Linear(hidden, num_classes - 3)",
        "batch_sanity",
        "The head outputs 5 logits while the labels run over 8 classes (labels >= head size).",
    ),
    Mutation(
        "mlp_huge_lr",
        "mlp_classifier",
        "LEARNING_RATE = 3e-3",
        "LEARNING_RATE = 1.0",
        "update_ratio",
        "Adam at lr=1.0 moves every weight by about 1 per step, far larger than the weights themselves.",
    ),
    # --- cnn_bn -----------------------------------------------------------------------
    Mutation(
        "cnn_unnormalised_pixels",
        "cnn_bn",
        "return (pixels - PIXEL_MEAN) / PIXEL_STD",
        "return pixels",
        "batch_sanity",
        "Images reach the model as raw 0-255 intensities instead of being normalised.",
    ),
    Mutation(
        "cnn_frozen_conv2",
        "cnn_bn",
        "self.conv2 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1)",
        "self.conv2 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1).requires_grad_(False)",
        "parameter_updates",
        "The second convolution is frozen by requires_grad_(False) and never trains.",
    ),
    Mutation(
        "cnn_dropout_always_on",
        "cnn_bn",
        "x = F.dropout(x, p=0.05, training=self.training)",
        "x = F.dropout(x, p=0.05)",
        "train_eval_modes",
        "F.dropout without training=self.training stays active in eval mode, so eval outputs are random.",
    ),
    Mutation(
        "cnn_zero_grad_before_step",
        "cnn_bn",
        "optimizer.step()",
        "optimizer.zero_grad(); optimizer.step()",
        "parameter_updates",
        "zero_grad runs between backward and step, so the step sees no gradients and nothing moves.",
    ),
    Mutation(
        "cnn_head_init_x50",
        "cnn_bn",
        "nn.init.normal_(self.head.weight, std=0.05)",
        "nn.init.normal_(self.head.weight, std=2.5)",
        "loss_at_init",
        "The head's init is 50x too large: confident random logits make the initial loss far above ln(6).",
    ),
    Mutation(
        "cnn_constant_input",
        "cnn_bn",
        '"batch": (train_images, train_labels),',
        '"batch": (torch.full_like(train_images, 0.5), train_labels),',
        "batch_sanity",
        "The training batch's images are replaced by a constant tensor.",
    ),
    # --- causal_lm --------------------------------------------------------------------
    Mutation(
        "lm_mask_result_discarded",
        "causal_lm",
        'scores = scores.masked_fill(self.future[:T, :T], float("-inf"))',
        'scores.masked_fill(self.future[:T, :T], float("-inf"))',
        "causality",
        "The out-of-place masked_fill's result is thrown away, so attention sees future tokens.",
    ),
    Mutation(
        "lm_mask_off_by_one",
        "causal_lm",
        "future = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1)",
        "future = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=2)",
        "causality",
        "The causal mask starts one diagonal too far up, so position t also attends to t+1.",
    ),
    Mutation(
        "lm_merge_heads_without_permute",
        "causal_lm",
        "y = y.permute(2, 0, 1, 3).reshape(T, B, C)",
        "y = y.reshape(T, B, C)",
        "batch_independence",
        "Heads are merged by reshaping (B, heads, T, d) straight to time-major (T, B, C), mixing samples.",
    ),
    Mutation(
        "lm_batch_major_by_reshape",
        "causal_lm",
        "h = h.transpose(0, 1)  # back to batch-major (B, T, C)",
        "h = h.reshape(B, T, -1)  # back to batch-major (B, T, C)",
        "batch_independence",
        "A reshape instead of a transpose turns the time-major (T, B, C) stream back to (B, T, C), mixing samples.",
    ),
    Mutation(
        "lm_unshifted_targets",
        "causal_lm",
        "targets = seq[:, 1:]",
        "targets = seq[:, :-1]",
        "batch_sanity",
        "Targets are the inputs themselves (not shifted by one), so the model learns to copy.",
    ),
    Mutation(
        "lm_all_targets_ignored",
        "causal_lm",
        "targets = seq[:, 1:]",
        "targets = seq[:, 1:].masked_fill(seq[:, 1:] >= 0, IGNORE_INDEX)",
        "batch_sanity",
        "A masking condition that is always true sets every target to the ignore index -100.",
    ),
    Mutation(
        "lm_softmax_in_head",
        "causal_lm",
        "return self.head(self.ln_f(h))",
        "return self.head(self.ln_f(h)).softmax(dim=-1)",
        "overfit_one_batch",
        "The LM head returns probabilities that cross_entropy treats as logits, so the loss cannot fall far.",
    ),
    # --- regression -------------------------------------------------------------------
    Mutation(
        "reg_target_shape_broadcast",
        "regression",
        "targets = ((y - y_mean) / y_std).unsqueeze(1)",
        "targets = (y - y_mean) / y_std",
        "odd_shapes",
        "Targets of shape (B,) against outputs of shape (B, 1) broadcast to (B, B) inside mse_loss.",
    ),
    Mutation(
        "reg_normalise_with_test_split",
        "regression",
        "stats_source = train_inputs",
        "stats_source = torch.cat([train_inputs, test_inputs])",
        "leakage",
        "preprocess fits the standardisation on train and test rows together, leaking the test split.",
    ),
    Mutation(
        "reg_missing_zero_grad",
        "regression",
        "optimizer.zero_grad()",
        "",
        "parameter_updates",
        "train_step never calls zero_grad, so gradients accumulate across steps.",
    ),
    Mutation(
        "reg_tanh_saturated_init",
        "regression",
        'nn.init.xavier_uniform_(self.fc1.weight, gain=nn.init.calculate_gain("tanh"))',
        'nn.init.xavier_uniform_(self.fc1.weight, gain=20 * nn.init.calculate_gain("tanh"))',
        "activations",
        "The first layer's init is scaled up 20x, so most tanh units start saturated.",
    ),
    Mutation(
        "reg_sum_reduction",
        "regression",
        "return F.mse_loss(outputs, targets)",
        'return F.mse_loss(outputs, targets, reduction="sum")',
        "loss_at_init",
        "The loss sums over the batch instead of averaging, so the initial loss is about B times mean(y^2).",
    ),
    Mutation(
        "reg_softsign_wrong_backward",
        "regression",
        "return grad_output / (1 + x.abs()) ** 2",
        "return grad_output / (1 + x.abs())",
        "gradcheck",
        "The custom SoftSign's backward drops the square of 1 / (1 + |x|), so its gradient is wrong.",
    ),
    Mutation(
        "reg_sgd_huge_lr",
        "regression",
        "return torch.optim.Adam(params, lr=LEARNING_RATE)",
        "return torch.optim.SGD(params, lr=10.0)",
        "update_ratio",
        "SGD at lr=10 makes updates as large as the weights or larger.",
    ),
)


def setup_path(setup: str) -> Path:
    if setup not in SETUPS:
        raise ValueError(f"unknown setup {setup!r}; expected one of {SETUPS}")
    return HERE / f"{setup}.py"


def mutated_source(m: Mutation) -> str:
    """The setup's source with the mutation applied (its fragment must occur exactly once)."""
    source = setup_path(m.setup).read_text(encoding="utf-8")
    count = source.count(m.find)
    assert count == 1, f"{m.name}: {m.find!r} occurs {count} times in {m.setup}.py, expected once"
    return source.replace(m.find, m.replace)


_module_ids = itertools.count()


def load_spec(setup: str, source: str | None = None, seed: int = 0) -> dict:
    """Exec a setup's source (by default the clean file) as a fresh module; return debug_spec(seed)."""
    path = setup_path(setup)
    if source is None:
        source = path.read_text(encoding="utf-8")
        filename = str(path)
    else:
        digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:12]
        filename = f"<{setup} mutated {digest}>"
        # Register the text so tracebacks and inspect can show the mutated lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    module = types.ModuleType(f"diagnose_setups_{setup}_{next(_module_ids)}")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module.debug_spec(seed)
