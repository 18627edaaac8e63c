"""ranks_random_streams: random numbers differ across ranks where they should, and agree where they must.

Where they must agree: the initial weights, unless DDP broadcasts rank 0's when it wraps the model. Where
they should differ: what the step and the data pipeline draw (dropout masks, noise, augmentation). torch's
default generator starts from the same fixed seed in every process, and a script that calls
torch.manual_seed(seed) on every rank keeps it so: each rank then draws the same dropout mask for its
i-th sample, and the loader's workers (seeded from that generator) the same augmentation for it. The
global batch of N ranks then carries the randomness of one rank's batch, repeated. Measured from the
generators' states, not from the user's code: equal states draw equal numbers.
"""

from __future__ import annotations

import hashlib
import random
import sys
from typing import Any

from ..checks.base import FAIL, WARN, Check, listed
from .fingerprint import TOLERANCE, fingerprint, spread_across_ranks

CHECK = Check("ranks_random_streams", "Random draws differ across ranks, initial weights agree",
              ("karpathy-recipe/fix-random-seed", "pytorch-distributed/debug-detail-checks"))


def measure(rank_spec: Any) -> dict[str, Any]:
    """This rank's generators, before anything of ours draws from them."""
    import torch

    states: dict[str, Any] = {"torch": fingerprint(torch.get_rng_state()),
                              "python random": hashlib.sha1(repr(random.getstate()).encode()).hexdigest()}
    numpy = sys.modules.get("numpy")  # only when the user's code imported it
    if numpy is not None:
        kind, keys, pos, *_ = numpy.random.get_state()
        states["numpy"] = hashlib.sha1(keys.tobytes() + str((kind, pos)).encode()).hexdigest()
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states["cuda"] = fingerprint(torch.cuda.get_rng_state())
    model = rank_spec.spec.model
    dropout = [n for n, m in model.named_modules()
               if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0]
    return {"states": states, "torch_seed": torch.initial_seed(), "dropout": dropout,
            "worker_seed": _worker_seed(rank_spec.loader)}


def draws(before: Any) -> bool:
    """Whether torch's generator moved since `before` (its fingerprint): the step drew random numbers."""
    import torch

    return fingerprint(torch.get_rng_state()) != before


def _worker_seed(loader: Any) -> dict[str, Any] | None:
    """The base seed the loader's next iterator would give its workers (drawn from loader.generator, or
    torch's default generator), read from a copy of that generator's state."""
    import torch
    from torch.utils import data

    if not isinstance(loader, data.DataLoader):
        return None
    source = loader.generator if loader.generator is not None else torch.default_generator
    copy = torch.Generator()
    copy.set_state(source.get_state())
    return {"seed": int(torch.empty((), dtype=torch.int64).random_(generator=copy)), "workers": loader.num_workers}


def judge(ranks: list[dict[str, Any]]) -> Any:
    streams = [r["random"] for r in ranks]
    names = [n for n in streams[0]["states"] if all(n in s["states"] for s in streams)]
    identical = [n for n in names if all(s["states"][n] == streams[0]["states"][n] for s in streams[1:])]
    start = spread_across_ranks([r["params_start"] for r in ranks])
    init_differs = [n for n, d in start.items() if d > TOLERANCE]
    step_draws = any(r["step_draws"] for r in ranks)
    torch_shared = "torch" in identical
    seeds = [s["worker_seed"] for s in streams]
    workers_shared = (all(s is not None for s in seeds) and seeds[0]["workers"] > 0
                      and all(s["seed"] == seeds[0]["seed"] for s in seeds))
    dropout = streams[0]["dropout"]
    problems: list[tuple[str, str]] = []
    if init_differs and not torch_shared:
        problems.append((FAIL, (f"{len(init_differs)} of {len(start)} parameter tensors start different on each "
                               f"rank ({listed(init_differs, 3)}), drawn from per-rank random streams, and "
                               "nothing broadcast rank 0's")))
    if torch_shared and step_draws:
        what = f"the masks of {len(dropout)} dropout layer(s): {listed(dropout, 3)}" if dropout else "its noise"
        problems.append((WARN, (f"every rank draws the same random numbers in its step ({what}): torch's "
                               f"generator is in the same state on all {len(ranks)} ranks")))
    if workers_shared:
        problems.append((WARN, (f"the loader's {seeds[0]['workers']} worker(s) get the same seeds on every rank: "
                               "random augmentation repeats rank for rank")))
    measured = {"identical_generators": identical, "differing_generators": [n for n in names if n not in identical],
                "torch_initial_seed": [s["torch_seed"] for s in streams], "step_draws_random_numbers": step_draws,
                "dropout_layers": len(dropout), "initial_weights_agree": not init_differs,
                "loader_worker_seeds_identical": workers_shared if seeds[0] is not None else None}
    expected = {"step_draws": "different on each rank (seed with seed + rank after building the model)",
                "initial_weights": "identical (DDP broadcast, or one seed before building the model)"}
    healthy = ("each rank draws its own random numbers in the step" if step_draws else
               "the step draws no random numbers") + ", and the initial weights agree"
    result = CHECK.verdict(problems, healthy, measured=measured, expected=expected,
                           meaning=_meaning(problems, init_differs and not torch_shared),
                           next_test=_next_test(problems, init_differs and not torch_shared))
    if torch_shared and not step_draws:
        result.details.append("the ranks share torch's random stream, but the step draws nothing from it; random "
                              "transforms run in the loader would repeat rank for rank")
    if torch_shared and all(s["torch_seed"] == 67280421310721 for s in streams):
        result.details.append("torch was never seeded: its default seed is the same fixed number in every process")
    return result


def _meaning(problems: list[tuple[str, str]], init_differs: bool) -> str:
    if init_differs:
        return ("Seeding by rank gives each rank its own dropout and augmentation, as it should, but a model built "
                "after that seed starts from different weights on each rank; without DDP's broadcast (a hand-rolled "
                "all-reduce) the ranks then train different models.")
    if problems:
        return ("Identical streams make the ranks' random choices move in lockstep: rank 0's i-th sample and rank "
                "1's i-th sample get the same dropout mask, noise or crop. The shards still differ, so training "
                "works, but the global batch holds N copies of one batch's randomness, which weakens the "
                "regularisation that dropout and augmentation add (and duplicates the samples outright when the "
                "shards overlap). The initial weights, which must agree, are DDP's job.")
    return "The ranks draw their own random numbers, and their replicas start from the same weights."


def _next_test(problems: list[tuple[str, str]], init_differs: bool) -> str:
    if init_differs:
        return ("Seed with one seed on every rank before building the model (or broadcast rank 0's weights, or wrap "
                "it in DDP), then reseed with seed + rank; rerun with --checks ranks_random_streams.")
    if problems:
        return ("Seed once for the weights, wrap the model in DDP, then call torch.manual_seed(seed + rank) (and "
                "random/numpy likewise, or DataLoader(generator=...) seeded by rank); rerun with --checks "
                "ranks_random_streams.")
    return "Nothing to do; rerun after changing how the script seeds."
