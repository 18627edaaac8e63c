"""Issue 17, blind-written variants round 2 (F11b): families the rules missed in small multi-file projects.

MLD001: a model registry (a factory returning `TABLE[name](...)`, the table filled by a registering decorator, by
`TABLE[key] = builder` or written as a dict) whose entry ends in an activation, another file's logit loss taking
the factory's model; per-output losses (a loss class of another file applying each loss of a dict it is handed to
the matching entry of the model's output dict), an entry of the output meeting a logit loss written out or built
by a builder of a third file (`functools.partial(F.binary_cross_entropy_with_logits, ...)`). The single-file families (a loss picked from a table by a config string, a registry-built
loss from a config dict, a scoring helper shared with prediction; MLD023's library backbone; MLD061's
hand-written cross-entropy) are pinned by their fixtures (tests/lint/fixtures/)."""

from .families import project_findings

TRAIN = """
    import torch
    import torch.nn as nn
    from zoo import {factory}

    def run_epoch(net, loader, opt, crit):
        for xb, yb in loader:
            opt.zero_grad()
            crit(net(xb), yb).backward()
            opt.step()

    def main(args, loader):
        net = {factory}(args.arch, n_classes=args.n)
        opt = torch.optim.Adam(net.parameters())
        crit = nn.CrossEntropyLoss()
        for _ in range(3):
            run_epoch(net, loader, opt, crit)
            print(crit(net(loader.x), loader.y).item())
"""

DECORATED_CLASSES = """
    import torch.nn as nn

    ARCHS = {{}}

    def register(cls):
        ARCHS[cls.__name__.lower()] = cls
        return cls

    @register
    class SmallCNN(nn.Module):
        def __init__(self, n_classes=10):
            super().__init__()
            self.fc = nn.Linear(16, n_classes)

        def forward(self, x):
            return {output}

    def get_arch(arch, **kw):
        return ARCHS.get(arch)(**kw)
"""


def test_a_registered_class_ending_in_softmax_is_reported(tmp_path):
    files = {"zoo.py": DECORATED_CLASSES.format(output="self.fc(x).softmax(dim=-1)"),
             "train.py": TRAIN.format(factory="get_arch")}
    assert ("zoo.py", 17) in project_findings(tmp_path, files, "MLD001")


def test_a_registered_class_returning_logits_is_quiet(tmp_path):
    files = {"zoo.py": DECORATED_CLASSES.format(output="self.fc(x)"), "train.py": TRAIN.format(factory="get_arch")}
    assert not project_findings(tmp_path, files, "MLD001")


BUILDERS_IN_A_DICT = """
    import torch.nn as nn

    def mlp(n_classes):
        return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, n_classes), nn.{last})

    def linear(n_classes):
        return nn.Linear(32, n_classes)

    BUILDERS = {{"mlp": mlp, "linear": linear}}

    def build(name, **kw):
        return BUILDERS[name](**kw)
"""


def test_a_builder_in_a_dict_table_ending_in_softmax_is_reported(tmp_path):
    files = {"zoo.py": BUILDERS_IN_A_DICT.format(last="Softmax(dim=1)"), "train.py": TRAIN.format(factory="build")}
    assert ("zoo.py", 5) in project_findings(tmp_path, files, "MLD001")


def test_a_builder_in_a_dict_table_ending_in_a_hidden_layer_is_quiet(tmp_path):
    files = {"zoo.py": BUILDERS_IN_A_DICT.format(last="Identity()"), "train.py": TRAIN.format(factory="build")}
    assert not project_findings(tmp_path, files, "MLD001")


STORED_ENTRIES = """
    import torch.nn as nn

    _REGISTRY = {}

    class Tagger(nn.Module):
        def __init__(self, n_classes):
            super().__init__()
            self.out = nn.Linear(16, n_classes)
            self.act = nn.Sigmoid()

        def forward(self, x):
            return self.act(self.out(x))

    _REGISTRY["tagger"] = Tagger

    def create(name, **kw):
        return _REGISTRY[name](**kw)
"""


def test_a_stored_entry_ending_in_sigmoid_meets_a_binary_logit_loss(tmp_path):
    train = TRAIN.format(factory="create").replace("nn.CrossEntropyLoss()", "nn.BCEWithLogitsLoss()")
    assert ("zoo.py", 13) in project_findings(tmp_path, {"zoo.py": STORED_ENTRIES, "train.py": train}, "MLD001")


def test_a_stored_entry_ending_in_sigmoid_meets_bce_quietly(tmp_path):
    train = TRAIN.format(factory="create").replace("nn.CrossEntropyLoss()", "nn.BCELoss()")
    assert not project_findings(tmp_path, {"zoo.py": STORED_ENTRIES, "train.py": train}, "MLD001")


# MLD001: per-output losses, a loss class applying each loss of a dict to the matching entry of the model's output
HEADS = """
    import torch
    import torch.nn as nn

    class TwoHeads(nn.Module):
        def __init__(self, n_cls, n_tags):
            super().__init__()
            self.trunk = nn.Linear(32, 64)
            self.cls = nn.Linear(64, n_cls)
            self.tags = nn.Linear(64, n_tags)

        def forward(self, x):
            h = self.trunk(x)
            return {"cls": self.cls(h), "tags": torch.sigmoid(self.tags(h))}
"""

PER_OUTPUT = """
    import torch.nn as nn
    from functools import partial
    import torch.nn.functional as F

    def make_criterion(kind):
        if kind == "xent":
            return nn.CrossEntropyLoss()
        if kind == "multilabel":
            return partial(F.binary_cross_entropy_with_logits, reduction="mean")
        raise KeyError(kind)

    class PerOutputLoss(nn.Module):
        def __init__(self, criteria, weights=None):
            super().__init__()
            self.criteria = criteria
            self.weights = weights or {}

        def forward(self, preds, targets):
            total = 0.0
            for name, crit in self.criteria.items():
                total = total + self.weights.get(name, 1.0) * crit(preds[name], targets[name])
            return total
"""

FIT = """
    import torch
    import torch.nn as nn
    from heads import TwoHeads
    from objectives import PerOutputLoss, make_criterion

    def fit(loader, epochs):
        net = TwoHeads(10, 5)
        loss_fn = PerOutputLoss({{"cls": make_criterion("xent"), "tags": {tags}}})
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for _ in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                loss_fn(net(x), y).backward()
                opt.step()
"""


def test_a_sigmoid_entry_meeting_a_built_logit_loss_is_reported(tmp_path):
    files = {"heads.py": HEADS, "objectives.py": PER_OUTPUT, "fit.py": FIT.format(tags='make_criterion("multilabel")')}
    assert ("heads.py", 14) in project_findings(tmp_path, files, "MLD001")


def test_a_sigmoid_entry_meeting_a_logit_loss_written_out_is_reported(tmp_path):
    files = {"heads.py": HEADS, "objectives.py": PER_OUTPUT, "fit.py": FIT.format(tags="nn.BCEWithLogitsLoss()")}
    assert ("heads.py", 14) in project_findings(tmp_path, files, "MLD001")


def test_a_sigmoid_entry_meeting_bce_is_quiet(tmp_path):
    files = {"heads.py": HEADS, "objectives.py": PER_OUTPUT, "fit.py": FIT.format(tags="nn.BCELoss()")}
    assert not project_findings(tmp_path, files, "MLD001")


def test_a_raw_entry_meeting_a_logit_loss_is_quiet(tmp_path):
    heads = HEADS.replace("torch.sigmoid(self.tags(h))", "self.tags(h)")
    files = {"heads.py": heads, "objectives.py": PER_OUTPUT, "fit.py": FIT.format(tags='make_criterion("multilabel")')}
    assert not project_findings(tmp_path, files, "MLD001")
