"""MLD020 across files (blind split 5's family): a subclass's public method that evaluates through a method it
inherits from another file's class, which loops the held model over a loader's batches without switching a
mode (active-learning strategies' select()/query() over the base's embedding helpers). Fixed twins stay quiet."""



from .families import project_findings


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD020")


BASE = """
    import torch
    from torch.utils.data import DataLoader


    class Strategy:
        def __init__(self, net, pool):
            self.net, self.pool = net, pool

        def predict(self, dataset):
            self.net.eval()
            with torch.no_grad():
                return torch.cat([self.net(x).argmax(1) for x in DataLoader(dataset, batch_size=64)])

        def pool_embeddings(self, dataset):
            feats = []
            for x in DataLoader(dataset, batch_size=64):
                feats.append(self._features(x))
            return torch.cat(feats)

        def _features(self, x):
            return self.net(x, return_features=True)
"""

QUERY = """
    import numpy as np
    import torch
    from base import Strategy


    class KCenterGreedy(Strategy):
        def query(self, budget):
            \"\"\"Pick the pool points farthest from the labelled set.\"\"\"
            embeddings = self.pool_embeddings(self.pool)
            distances = embeddings.cdist(embeddings).min(1).values
            return np.argsort(distances.numpy())[-budget:]
"""


def test_a_strategy_querying_through_the_bases_embedding_loop_is_reported_at_its_top(tmp_path):
    found = _run(tmp_path, {"base.py": BASE, "kcenter.py": QUERY})
    assert ("kcenter.py", 10) in found


def test_the_strategy_switching_to_eval_is_quiet(tmp_path):
    fixed = QUERY.replace("            embeddings = self.pool", "            self.net.eval()\n"
                                                             "            embeddings = self.pool")
    assert [f for f in _run(tmp_path, {"base.py": BASE, "kcenter.py": fixed}) if f[0] == "kcenter.py"] == []


def test_a_base_that_switches_in_the_helper_is_quiet(tmp_path):
    base = BASE.replace("            feats = []\n", "            self.net.eval()\n            feats = []\n")
    assert _run(tmp_path, {"base.py": base, "kcenter.py": QUERY}) == []


def test_a_package_with_relative_imports_is_followed(tmp_path):
    query = QUERY.replace("from base import Strategy", "from .base import Strategy")
    found = _run(tmp_path, {"strategies/__init__.py": "", "strategies/base.py": BASE,
                            "strategies/kcenter.py": query})
    assert ("kcenter.py", 10) in found


def test_a_subclass_that_trains_is_left_to_the_training_checks(tmp_path):
    training = QUERY + """
        def fit(self, loader, opt):
            for x, y in loader:
                opt.zero_grad()
                self.net(x).sum().backward()
                opt.step()
    """
    assert [f for f in _run(tmp_path, {"base.py": BASE, "kcenter.py": training}) if f[0] == "kcenter.py"] == []


UNCERTAINTY_BASE = """
    import torch
    from torch.utils.data import DataLoader


    class Sampler:
        def __init__(self, model, batch_size=128):
            self.model, self.batch_size = model, batch_size

        def predict_probs(self, dataset):
            probs = []
            with torch.no_grad():
                for x, _ in DataLoader(dataset, batch_size=self.batch_size):
                    probs.append(self.model(x).softmax(-1))
            return torch.cat(probs)
"""

ENTROPY = """
    import torch
    from samplers.base import Sampler


    class EntropySampler(Sampler):
        def choose(self, pool, n):
            probs = self.predict_probs(pool)
            entropy = -(probs * probs.clamp_min(1e-12).log()).sum(1)
            return entropy.topk(n).indices
"""


def test_an_uncertainty_sampler_over_the_bases_probabilities_is_reported(tmp_path):
    found = _run(tmp_path, {"samplers/__init__.py": "", "samplers/base.py": UNCERTAINTY_BASE,
                            "samplers/entropy.py": ENTROPY})
    assert ("entropy.py", 8) in found


def test_a_private_step_the_subclass_calls_itself_is_not_an_entry_point(tmp_path):
    stepped = ENTROPY.replace("        def choose(self, pool, n):", "        def _choose(self, pool, n):")
    found = _run(tmp_path, {"samplers/__init__.py": "", "samplers/base.py": UNCERTAINTY_BASE,
                            "samplers/entropy.py": stepped})
    assert [f for f in found if f[0] == "entropy.py"] == []
