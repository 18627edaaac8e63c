"""davidmrau/mixture-of-experts (PyTorch port of Shazeer et al. 2017's sparsely-gated MoE from tensor2tensor): noisy top-k gating (k=4 of 10 experts; zero-initialised w_gate/w_noise, softplus noise std, Gaussian noise in training only), SparseDispatcher dispatch/combine of log-softmax MLP experts in probability space, load-balancing loss 1e-2 * (cv^2(importance) + cv^2(smooth load from the normal-CDF prob-in-top-k)), returned next to the prediction and added to CrossEntropyLoss as in its example.py, Adam with default settings (lr 1e-3)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions.normal import Normal

NUM_CLASSES = 10
IMAGE = (3, 8, 8)
INPUT_SIZE = IMAGE[0] * IMAGE[1] * IMAGE[2]
NUM_EXPERTS = 10
HIDDEN = 32
K = 4
LOSS_COEF = 1e-2
BATCH = 64
TASK_SEED = 1701_06538  # fixes the class templates; the sample seed only draws the samples


class SparseDispatcher:
    """Sends each sample to the experts whose gate is nonzero and sums their gated outputs back per sample."""

    def __init__(self, num_experts: int, gates: torch.Tensor):
        self._gates = gates
        self._num_experts = num_experts
        sorted_experts, index_sorted_experts = torch.nonzero(gates).sort(0)
        _, self._expert_index = sorted_experts.split(1, dim=1)
        self._batch_index = torch.nonzero(gates)[index_sorted_experts[:, 1], 0]
        self._part_sizes = (gates > 0).sum(0).tolist()
        gates_exp = gates[self._batch_index.flatten()]
        self._nonzero_gates = torch.gather(gates_exp, 1, self._expert_index)

    def dispatch(self, inp: torch.Tensor):
        inp_exp = inp[self._batch_index].squeeze(1)
        return torch.split(inp_exp, self._part_sizes, dim=0)

    def combine(self, expert_out, multiply_by_gates: bool = True) -> torch.Tensor:
        stitched = torch.cat(expert_out, 0).exp()  # experts give log-probabilities: mix in probability space
        if multiply_by_gates:
            stitched = stitched.mul(self._nonzero_gates)
        zeros = torch.zeros(self._gates.size(0), expert_out[-1].size(1), requires_grad=True, device=stitched.device)
        combined = zeros.index_add(0, self._batch_index, stitched.float())
        combined[combined == 0] = torch.finfo(torch.float64).eps  # avoid log(0)
        return combined.log()

    def expert_to_gates(self):
        return torch.split(self._nonzero_gates, self._part_sizes, dim=0)


class MLP(nn.Module):
    def __init__(self, input_size: int, output_size: int, hidden_size: int):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, output_size)
        self.relu = nn.ReLU()
        self.log_soft = nn.LogSoftmax(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.log_soft(self.fc2(self.relu(self.fc1(x))))


class MoE(nn.Module):
    """forward(x [B, input_size]) -> (log-probabilities [B, output_size], auxiliary load-balancing loss)."""

    def __init__(self, input_size: int, output_size: int, num_experts: int, hidden_size: int, noisy_gating: bool = True, k: int = 4):
        super().__init__()
        self.noisy_gating = noisy_gating
        self.num_experts = num_experts
        self.k = k
        self.experts = nn.ModuleList([MLP(input_size, output_size, hidden_size) for _ in range(num_experts)])
        self.w_gate = nn.Parameter(torch.zeros(input_size, num_experts), requires_grad=True)
        self.w_noise = nn.Parameter(torch.zeros(input_size, num_experts), requires_grad=True)
        self.softplus = nn.Softplus()
        self.softmax = nn.Softmax(1)
        self.register_buffer("mean", torch.tensor([0.0]))
        self.register_buffer("std", torch.tensor([1.0]))
        assert self.k <= self.num_experts

    def cv_squared(self, x: torch.Tensor) -> torch.Tensor:
        """Squared coefficient of variation: a loss that pushes a positive distribution towards uniform."""
        eps = 1e-10
        if x.shape[0] == 1:
            return torch.tensor([0], device=x.device, dtype=x.dtype)
        return x.float().var() / (x.float().mean() ** 2 + eps)

    def _gates_to_load(self, gates: torch.Tensor) -> torch.Tensor:
        return (gates > 0).sum(0)

    def _prob_in_top_k(self, clean_values, noisy_values, noise_stddev, noisy_top_values):
        """Probability, under fresh noise, that each expert would be in the top k: a differentiable load."""
        batch = clean_values.size(0)
        m = noisy_top_values.size(1)
        top_values_flat = noisy_top_values.flatten()
        threshold_positions_if_in = torch.arange(batch, device=clean_values.device) * m + self.k
        threshold_if_in = torch.unsqueeze(torch.gather(top_values_flat, 0, threshold_positions_if_in), 1)
        is_in = torch.gt(noisy_values, threshold_if_in)
        threshold_positions_if_out = threshold_positions_if_in - 1
        threshold_if_out = torch.unsqueeze(torch.gather(top_values_flat, 0, threshold_positions_if_out), 1)
        normal = Normal(self.mean, self.std)
        prob_if_in = normal.cdf((clean_values - threshold_if_in) / noise_stddev)
        prob_if_out = normal.cdf((clean_values - threshold_if_out) / noise_stddev)
        return torch.where(is_in, prob_if_in, prob_if_out)

    def noisy_top_k_gating(self, x: torch.Tensor, train: bool, noise_epsilon: float = 1e-2):
        clean_logits = x @ self.w_gate
        if self.noisy_gating and train:
            raw_noise_stddev = x @ self.w_noise
            noise_stddev = self.softplus(raw_noise_stddev) + noise_epsilon
            noisy_logits = clean_logits + (torch.randn_like(clean_logits) * noise_stddev)
            logits = noisy_logits
        else:
            logits = clean_logits
        top_logits, top_indices = logits.topk(min(self.k + 1, self.num_experts), dim=1)
        top_k_logits = top_logits[:, : self.k]
        top_k_indices = top_indices[:, : self.k]
        top_k_gates = self.softmax(top_k_logits)
        zeros = torch.zeros_like(logits, requires_grad=True)
        gates = zeros.scatter(1, top_k_indices, top_k_gates)
        if self.noisy_gating and self.k < self.num_experts and train:
            load = self._prob_in_top_k(clean_logits, noisy_logits, noise_stddev, top_logits).sum(0)
        else:
            load = self._gates_to_load(gates)
        return gates, load

    def forward(self, x: torch.Tensor, loss_coef: float = LOSS_COEF):
        gates, load = self.noisy_top_k_gating(x, self.training)
        importance = gates.sum(0)
        loss = self.cv_squared(importance) + self.cv_squared(load)
        loss = loss * loss_coef
        dispatcher = SparseDispatcher(self.num_experts, gates)
        expert_inputs = dispatcher.dispatch(x)
        expert_outputs = [self.experts[i](expert_inputs[i]) for i in range(self.num_experts)]
        y = dispatcher.combine(expert_outputs)
        return y, loss


criterion = nn.CrossEntropyLoss()


def moe_loss(outputs, y: torch.Tensor) -> torch.Tensor:
    """example.py: prediction loss plus the auxiliary loss that balances importance and load."""
    y_hat, aux_loss = outputs
    return criterion(y_hat, y) + aux_loss


def _templates() -> torch.Tensor:
    gen = torch.Generator().manual_seed(TASK_SEED)
    coarse = torch.randn(NUM_CLASSES, IMAGE[0], 4, 4, generator=gen)
    return F.interpolate(coarse, size=IMAGE[1:], mode="bilinear", align_corners=False)


def make_batch(seed: int, count: int = BATCH):
    """Flattened 3x8x8 images, as the repo's cifar10_example feeds the MoE (inputs.view(B, -1)): per-class smooth
    templates, randomly rescaled, with pixel noise, normalised to about zero mean and unit variance."""
    gen = torch.Generator().manual_seed(seed)
    templates = _templates()
    labels = (torch.arange(count) % NUM_CLASSES)[torch.randperm(count, generator=gen)]
    scale = 0.6 + 0.8 * torch.rand(count, 1, 1, 1, generator=gen)
    images = templates[labels] * scale + 0.9 * torch.randn(count, *IMAGE, generator=gen)
    return images.view(count, -1), labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": MoE(INPUT_SIZE, NUM_CLASSES, NUM_EXPERTS, HIDDEN, noisy_gating=True, k=K),
        "batch": batch,
        "loss_fn": moe_loss,
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
