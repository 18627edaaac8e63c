"""MLD053 across files (issue 17, blind split 6): a worker-aware wrapper IterableDataset that asks
get_worker_info() for the worker's id but never reseeds NumPy, wrapping a dataset of another file that draws
from np.random in a method its __iter__ calls; flagged where the reseed goes. The reseeding wrappers stay quiet."""

from pathlib import Path

from .families import both_ways

EPISODES = (
    "import numpy as np\n"
    "from torch.utils.data import IterableDataset, get_worker_info\n"
    "def worker_index():\n"
    "    info = get_worker_info()\n"
    "    return info.id if info else 0\n"
    "class EpisodeStream(IterableDataset):\n"
    "    def __init__(self, episodes, length):\n"
    "        self.episodes, self.length = episodes, length\n"
    "    def __iter__(self):\n"
    "        while True:\n"
    "            yield self._window()\n"
    "    def _window(self):\n"
    "        ep = self.episodes[np.random.randint(len(self.episodes))]\n"
    "        start = np.random.randint(len(ep) - self.length + 1)\n"
    "        return ep[start:start + self.length]\n"
)
TAGGED = (
    "from torch.utils.data import IterableDataset, get_worker_info\n"
    "class WithWorkerId(IterableDataset):\n"
    "    def __init__(self, source):\n"
    "        self.source = source\n"
    "    def __iter__(self):\n"
    "        info = get_worker_info()\n"
    "        if info is not None:\n"
    "            wid = info.id\n"
    "        else:\n"
    "            wid = 0\n"
    "        for item in self.source:\n"
    "            yield item, wid\n"
)
RESEEDED = TAGGED.replace("            wid = info.id\n",
                          "            wid = info.id\n            np.random.seed(info.seed % 2 ** 32)\n").replace(
    "from torch", "import numpy as np\nfrom torch")
SHARDED = (
    "from torch.utils.data import IterableDataset, get_worker_info\n"
    "class Shards(IterableDataset):\n"
    "    def __init__(self, files):\n"
    "        self.files = files\n"
    "    def __iter__(self):\n"
    "        info = get_worker_info()\n"
    "        if not info:\n"
    "            mine = self.files\n"
    "        else:\n"
    "            mine = self.files[info.id::info.num_workers]\n"
    "        for f in mine:\n"
    "            yield f\n"
)
TRAIN = (
    "from torch.utils.data import DataLoader\n"
    "from episodes import EpisodeStream\n"
    "from wrappers import WithWorkerId\n"
    "def batches(episodes, workers):\n"
    "    return iter(DataLoader(WithWorkerId(EpisodeStream(episodes, 50)), batch_size=None, num_workers=workers))\n"
)


def _mld053(tmp_path: Path) -> list[tuple[str, int]]:
    return sorted(both_ways(tmp_path, "MLD053"))


def test_worker_tagging_wrapper_without_reseed(tmp_path):
    (tmp_path / "episodes.py").write_text(EPISODES)
    (tmp_path / "wrappers.py").write_text(TAGGED)
    (tmp_path / "train.py").write_text(TRAIN)
    assert _mld053(tmp_path) == [("wrappers.py", 8)]  # the worker branch, where the reseed goes


def test_wrapper_that_reseeds_is_quiet(tmp_path):
    (tmp_path / "episodes.py").write_text(EPISODES)
    (tmp_path / "wrappers.py").write_text(RESEEDED)
    (tmp_path / "train.py").write_text(TRAIN)
    assert _mld053(tmp_path) == []


def test_dataset_sharding_its_own_files_is_quiet(tmp_path):
    """It iterates its own file list, not a dataset it wraps: the other file's draws do not run in it."""
    (tmp_path / "episodes.py").write_text(EPISODES)
    (tmp_path / "wrappers.py").write_text(SHARDED)
    (tmp_path / "train.py").write_text(TRAIN.replace("WithWorkerId", "Shards"))
    assert _mld053(tmp_path) == []


def test_no_numpy_draws_anywhere_is_quiet(tmp_path):
    (tmp_path / "episodes.py").write_text(EPISODES.replace("np.random.randint", "int(torch.randint"))
    (tmp_path / "wrappers.py").write_text(TAGGED)
    (tmp_path / "train.py").write_text(TRAIN)
    assert _mld053(tmp_path) == []
