"""Fixtures shared by the diagnostics tests."""

import pytest


@pytest.fixture(scope="module")
def single_thread():
    """Tiny models train faster on one thread, and their timings do not depend on other load."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
