"""Claims of refs/distributed.md and refs/speed-memory.md that code can settle, run on CPU (gloo for DDP)."""

import math

import pytest
import torch
import torch.multiprocessing as mp
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DistributedSampler


def test_the_distributed_sampler_repeats_its_shuffle_until_told_the_epoch():
    sampler = DistributedSampler(list(range(100)), num_replicas=2, rank=0, shuffle=True, seed=0)
    first, second = list(sampler), list(sampler)
    assert first == second
    sampler.set_epoch(1)
    assert list(sampler) != first


def test_the_distributed_sampler_pads_uneven_shards_with_repeated_samples():
    shards = [list(DistributedSampler(list(range(10)), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert [len(s) for s in shards] == [4, 4, 4]
    seen = sorted(i for s in shards for i in s)
    assert seen == [0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9]


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.unused = nn.Linear(4, 4), nn.Linear(4, 1), nn.Linear(4, 1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def _worker(rank: int, init_file: str, results):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    out = {}
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(_Net())
    x = torch.randn(8, 4) + rank
    try:
        for _ in range(2):
            model(x).sum().backward()
        out["unused"] = ""
    except RuntimeError as error:
        out["unused"] = str(error)
    torch.manual_seed(0)
    declared = nn.parallel.DistributedDataParallel(_Net(), find_unused_parameters=True)
    declared(x * (rank + 1)).sum().backward()
    out["norm"] = float(nn.utils.clip_grad_norm_(declared.parameters(), 1.0))
    correct, count = (3.0, 4.0) if rank == 0 else (3.0, 12.0)
    out["rank_accuracy"] = correct / count
    totals = torch.tensor([correct, count], dtype=torch.float64)
    dist.all_reduce(totals)
    out["pooled_accuracy"] = float(totals[0] / totals[1])
    results[rank] = out
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def ddp_results(tmp_path_factory):
    results = mp.Manager().dict()
    init_file = str(tmp_path_factory.mktemp("gloo") / "init")
    mp.start_processes(_worker, args=(init_file, results), nprocs=2, join=True, start_method="spawn")
    return dict(results)


def test_ddp_raises_on_the_second_iteration_when_a_parameter_is_unused(ddp_results):
    for rank in (0, 1):
        assert "Expected to have finished reduction in the prior iteration" in ddp_results[rank]["unused"]


def test_under_ddp_every_rank_clips_with_the_same_global_norm(ddp_results):
    assert ddp_results[0]["norm"] == pytest.approx(ddp_results[1]["norm"], rel=0, abs=0)


def test_the_pooled_metric_differs_from_rank_0_and_from_the_mean_of_rank_metrics(ddp_results):
    pooled = ddp_results[0]["pooled_accuracy"]
    assert pooled == ddp_results[1]["pooled_accuracy"] == pytest.approx(6 / 16)
    assert ddp_results[0]["rank_accuracy"] == 0.75
    assert (ddp_results[0]["rank_accuracy"] + ddp_results[1]["rank_accuracy"]) / 2 == pytest.approx(0.5)


def test_torch_compile_stops_recompiling_at_its_limit_of_eight_and_runs_eagerly():
    import torch._dynamo

    torch._dynamo.reset()
    compiles = []

    def counting_backend(graph_module, example_inputs):
        compiles.append(1)
        return graph_module.forward

    @torch.compile(backend=counting_backend, dynamic=False)
    def add_one(x):
        return x + 1

    for length in range(1, 12):
        assert torch.equal(add_one(torch.ones(length)), torch.full((length,), 2.0))
    torch._dynamo.reset()
    assert len(compiles) == 8


def mfu(tokens_per_second, n_params, n_layers, n_heads, head_dim, seq_len, peak_flops_total):
    flops_per_token = 6 * n_params + 12 * n_layers * n_heads * head_dim * seq_len
    return tokens_per_second * flops_per_token / peak_flops_total


def test_mfu_reproduces_palms_worked_example_for_megatron_turing_nlg():
    # PaLM Appendix B: 65.43K tokens/s, 530B parameters, 2240 A100s at 312 peak TFLOP/s -> 29.7% without attention
    value = mfu(65.43e3, 530e9, 0, 0, 0, 0, 312e12 * 2240)
    assert math.floor(value * 1000) / 10 == 29.7


def _saved_bytes(fn, x) -> int:
    saved = []

    def pack(t):
        saved.append(t.numel() * t.element_size())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(x).sum().backward()
    return sum(saved)


def test_activation_checkpointing_saves_less_and_gives_the_same_gradients():
    torch.manual_seed(0)
    blocks = nn.ModuleList(nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)) for _ in range(4))
    x = torch.randn(32, 64, requires_grad=True)

    def plain(inp):
        for block in blocks:
            inp = block(inp)
        return inp

    def checkpointed(inp):
        for block in blocks:
            inp = checkpoint(block, inp, use_reentrant=False)
        return inp

    plain_bytes = _saved_bytes(plain, x)
    plain_grads = [p.grad.clone() for p in blocks.parameters()]
    blocks.zero_grad()
    checkpointed_bytes = _saved_bytes(checkpointed, x)
    assert checkpointed_bytes < plain_bytes / 2
    for p, g in zip(blocks.parameters(), plain_grads):
        torch.testing.assert_close(p.grad, g)


def test_accumulating_micro_batches_with_the_loss_divided_by_their_number_matches_the_full_batch():
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    nn.functional.mse_loss(model(x), y).backward()
    full = model.weight.grad.clone()
    model.zero_grad()
    for xs, ys in zip(x.chunk(4), y.chunk(4)):
        (nn.functional.mse_loss(model(xs), ys) / 4).backward()
    torch.testing.assert_close(model.weight.grad, full)
