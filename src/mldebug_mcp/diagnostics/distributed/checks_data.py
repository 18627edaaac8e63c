"""ranks_data_shards: each rank sees different samples, and the order changes from one epoch to the next.

Read from the spec's loader without loading a sample: the indices its sampler (or batch sampler) hands
out in two consecutive epochs, with the spec's set_epoch hook called before each, as the training loop
would. DistributedSampler pads the last round with repeats, so up to world_size shared indices are normal.
"""

from __future__ import annotations

from typing import Any

from ..checks.base import FAIL, WARN, Check, listed

CHECK = Check("ranks_data_shards", "Each rank gets its own samples, reshuffled every epoch",
              ("pytorch-distributed/sampler-set-epoch",))
INDEX_LIMIT = 200_000  # indices read per epoch and rank; enough to see the pattern


def measure(rank_spec: Any) -> dict[str, Any]:
    """This rank's sample indices for epochs 0 and 1, or why they cannot be read."""
    from torch.utils import data

    loader = rank_spec.loader
    if loader is None:
        return {"skipped": "the spec gives no 'loader'; return the rank's DataLoader as loader=... to check "
                           "its sharding and epoch order"}
    if not isinstance(loader, data.DataLoader):
        return {"skipped": f"'loader' is a {type(loader).__name__}, not a DataLoader: its sampler cannot be read"}
    if isinstance(loader.dataset, data.IterableDataset):
        return {"skipped": "the loader reads an IterableDataset, which has no sampler to read; shard it by "
                           "rank inside the dataset (torch.utils.data.get_worker_info and the rank)"}
    epochs = []
    for epoch in (0, 1):
        if rank_spec.set_epoch is not None:
            rank_spec.set_epoch(epoch)
        epochs.append(_indices(loader))
    sampler = loader.sampler
    return {"epochs": epochs, "sampler": type(sampler).__name__, "shuffle": _shuffles(sampler),
            "hook": rank_spec.set_epoch is not None, "dataset": len(loader.dataset)}


def judge(ranks: list[dict[str, Any]]) -> Any:
    data = [r["data"] for r in ranks]
    skipped = next((d["skipped"] for d in data if "skipped" in d), None)
    if skipped:
        return CHECK.skip(skipped)
    world = len(data)
    first = [set(d["epochs"][0]) for d in data]
    shared = max(len(first[a] & first[b]) for a in range(world) for b in range(a + 1, world))
    smallest = min(len(s) for s in first) or 1
    covered = len(set().union(*first)) / max(1, data[0]["dataset"])
    repeats = [i for i, d in enumerate(data) if d["epochs"][0] == d["epochs"][1]]
    shuffle, hook, sampler = data[0]["shuffle"], data[0]["hook"], data[0]["sampler"]
    problems: list[tuple[str, str]] = []
    if shared > world:
        status = FAIL if shared / smallest > 0.1 else WARN
        problems.append((status, (f"two ranks share {shared} of their {smallest} samples in an epoch "
                                 f"({shared / smallest:.0%}): the {sampler} does not split the data by rank")))
    if shuffle is not False and repeats and len(data[0]["epochs"][0]) > 1:
        if hook or sampler != "DistributedSampler":
            cause = ("although the spec's set_epoch hook ran before each: it does not reach the loader's sampler"
                     if hook else f"and the {sampler} does not reshuffle by itself")
            ranks_text = listed([str(r) for r in repeats])
            problems.append((FAIL, f"rank(s) {ranks_text} get the same order in epochs 0 and 1 {cause}"))
        else:
            problems.append((WARN, ("the DistributedSampler repeats its order unless the loop calls "
                                   "sampler.set_epoch(epoch) each epoch, and the spec gives no set_epoch to show it")))
    measured = {"max_shared_samples": shared, "samples_per_rank": [len(s) for s in first],
                "coverage": round(covered, 4), "same_order_next_epoch": repeats, "sampler": sampler,
                "shuffle": shuffle, "set_epoch_given": hook}
    expected = {"max_shared_samples": f"<= {world} (padding)", "same_order_next_epoch": []}
    healthy = f"the {world} ranks get disjoint shards ({covered:.0%} of the dataset covered)" + (
        " and a new order each epoch" if shuffle is not False else "")
    result = CHECK.verdict(
        problems, healthy, measured=measured, expected=expected, meaning=_meaning(problems, shared > world),
        next_test="Build the loader with sampler=DistributedSampler(dataset, shuffle=True) (no shuffle=True on the "
                  "loader) and call loader.sampler.set_epoch(epoch) before each epoch; return set_epoch in the "
                  "spec and rerun with --checks ranks_data_shards.")
    if shuffle is False:
        result.details.append(f"the {sampler} does not shuffle: the order is the same every epoch")
    return result


def _meaning(problems: list[tuple[str, str]], overlap: bool) -> str:
    if not problems:
        return "Every rank trains on its own part of the data, so an epoch of N ranks covers the dataset once."
    if overlap:
        return ("Ranks that draw the same samples do the same work: N ranks cover the data no faster than one, "
                "the effective batch holds duplicates, and an 'epoch' is N passes over the same part of the data.")
    return ("Without set_epoch the DistributedSampler seeds its shuffle with the same epoch number every time, "
            "so every epoch replays the first one's order: the model sees the batches in a fixed cycle.")


def _indices(loader: Any) -> list[int]:
    source = loader.batch_sampler if loader.batch_sampler is not None else loader.sampler
    out: list[int] = []
    for item in source:
        out.extend(int(i) for i in (item if isinstance(item, (list, tuple)) else [item]))
        if len(out) >= INDEX_LIMIT:
            break
    return out[:INDEX_LIMIT]


def _shuffles(sampler: Any) -> bool | None:
    from torch.utils import data

    if isinstance(sampler, data.RandomSampler):
        return True
    if isinstance(sampler, data.SequentialSampler):
        return False
    shuffle = getattr(sampler, "shuffle", None)
    return shuffle if isinstance(shuffle, bool) else None
