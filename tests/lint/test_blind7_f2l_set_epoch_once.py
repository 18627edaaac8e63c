"""MLD054 (issue 17, blind split 7): a sampler's set_epoch called once, before the run that iterates its
loader for many epochs (an ignite `engine.run(loader, max_epochs=n)`, a `for epoch` loop over the loader),
flagged at that call; set_epoch in an epoch-start handler or at the top of the epoch loop stays quiet. Each
case is its own file: a file that calls set_epoch correctly anywhere on the loader is quiet."""

import textwrap

import pytest

from .families import marked_lines, snippet_lines

HEADER = "import torch\nfrom torch.utils.data.distributed import DistributedSampler\n"

FIRES = {
    "ignite_engine": """
        def launch_engine(engine, feed_loader, cfg):
            feed_loader.sampler.set_epoch(engine.state.epoch - 1)  # MLD054
            engine.run(feed_loader, max_epochs=cfg.max_epochs)
    """,
    "epoch_loop": """
        def launch_loop(model, shard_sampler, shard_loader, step, n):
            shard_sampler.set_epoch(0)  # MLD054
            for ep in range(n):
                for batch in shard_loader:
                    step(model, batch)
    """,
    "trainer_method": """
        class Runner:
            def __init__(self, engine, loader):
                self.engine = engine
                self.loader = loader

            def go(self, epochs):
                if torch.distributed.get_world_size() > 1:
                    self.loader.sampler.set_epoch(0)  # MLD054
                self.engine.run(self.loader, max_epochs=epochs)
    """,
}

QUIET = {
    "handler": """
        def launch_with_handler(engine, pipe_loader, cfg):
            @engine.on("EPOCH_STARTED")
            def reshuffle(e):
                pipe_loader.sampler.set_epoch(e.state.epoch - 1)

            engine.run(pipe_loader, max_epochs=cfg.max_epochs)
    """,
    "resume_then_per_epoch": """
        def resume_then_loop(model, resume_sampler, resume_loader, step, first, n):
            resume_sampler.set_epoch(first)
            for ep in range(first, n):
                resume_sampler.set_epoch(ep)
                for batch in resume_loader:
                    step(model, batch)
    """,
    "per_epoch_helper": """
        def one_epoch(model, loader, step, ep):
            loader.sampler.set_epoch(ep)
            for batch in loader:
                step(model, batch)
    """,
}


@pytest.mark.parametrize("name", sorted(FIRES))
def test_set_epoch_once_fires_at_the_call(name):
    source = HEADER + textwrap.dedent(FIRES[name])
    assert snippet_lines(source, "MLD054") == marked_lines(source, "MLD054")


@pytest.mark.parametrize("name", sorted(QUIET))
def test_set_epoch_per_epoch_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(QUIET[name]), "MLD054") == []
