"""Issue 17, blind-written variants (F10b): families the rules missed in small multi-file projects.

MLD001: a LightningModule-like step that calls `self.forward(x)` whose own forward returns another file's model's
output (a factory's); a model class picked by a conditional expression (`Model = GCN if ... else SAGE`); a
softmax fed to `F.nll_loss(F.log_softmax(...))` (the pair is a cross-entropy); a Keras-like base class keeping in
`self.loss_fn` the loss its `compile(loss=...)` is handed by a caller of the subclass.
MLD040 and MLD062 are pinned by their fixtures (tests/lint/fixtures/)."""

from .families import project_findings

NETS = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Backbone(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.head = nn.Sequential(nn.Linear(8, n), nn.Softmax(dim=1))

        def forward(self, x):
            return self.head(x)

    class Plain(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.head = nn.Linear(8, n)

        def forward(self, x):
            return self.head(x)

    def make_net(kind, n):
        if kind == "soft":
            return Backbone(n)
        return Plain(n)
"""

STEP_VIA_OWN_FORWARD = """
    import torch.nn.functional as F
    import pytorch_lightning as pl
    from nets import make_net

    class Task(pl.LightningModule):
        def __init__(self, kind):
            super().__init__()
            self.net = make_net(kind, 10)

        def forward(self, x):
            return self.net(x)

        def shared_step(self, batch):
            x, y = batch
            scores = self.forward(x)
            return F.cross_entropy(scores, y)

        def training_step(self, batch, i):
            return self.shared_step(batch)
"""

STEP_VIA_SELF_CALL = """
    import torch.nn as nn
    from nets import Backbone

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = Backbone(5)
            self.criterion = nn.CrossEntropyLoss()

        def forward(self, x):
            out = self.model(x)
            return out

        def step(self, x, y):
            return self.criterion(self(x), y)
"""

STEP_OWN_LOGITS = """
    import torch.nn as nn
    from nets import Plain

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = Plain(5)

        def forward(self, x):
            return self.model(x)

        def step(self, x, y):
            return nn.functional.cross_entropy(self.forward(x), y)
"""


def test_step_through_own_forward_reaches_the_factorys_model(tmp_path):
    assert ("nets.py", 8) in project_findings(tmp_path, {"nets.py": NETS, "task.py": STEP_VIA_OWN_FORWARD}, "MLD001")


def test_self_call_through_own_forward_reaches_the_model(tmp_path):
    assert ("nets.py", 8) in project_findings(tmp_path, {"nets.py": NETS, "wrap.py": STEP_VIA_SELF_CALL}, "MLD001")


def test_own_forward_of_a_logits_model_is_quiet(tmp_path):
    assert project_findings(tmp_path, {"nets.py": NETS, "wrap.py": STEP_OWN_LOGITS}, "MLD001") == []


CHOSEN_MODELS = """
    import torch.nn as nn
    import torch.nn.functional as F

    class GraphNet(nn.Module):
        def forward(self, x):
            return F.softmax(self.lin(x), dim=1)

    class SageNet(GraphNet):
        pass

    class RawNet(nn.Module):
        def forward(self, x):
            return self.lin(x)
"""

NLL_OF_LOG_SOFTMAX = """
    import torch.nn.functional as F
    from models import GraphNet, SageNet

    def fit(model, x, y):
        out = model(x)
        return F.nll_loss(F.log_softmax(out, dim=1), y)

    def main(args):
        Net = GraphNet if args.arch == "gcn" else SageNet
        fit(Net(), args.x, args.y)
"""

NLL_THROUGH_A_NAME = """
    import torch
    import torch.nn as nn
    from models import GraphNet

    criterion = nn.NLLLoss()

    def epoch(model, batches):
        for x, y in batches:
            log_probs = torch.log_softmax(model(x), dim=-1)
            criterion(log_probs, y).backward()

    epoch(GraphNet(), [])
"""

NLL_OF_RAW_SCORES = """
    import torch.nn.functional as F
    from models import RawNet

    def fit(model, x, y):
        return F.nll_loss(F.log_softmax(model(x), dim=1), y)

    fit(RawNet(), 1, 2)
"""


def test_softmax_model_chosen_by_a_conditional_into_log_softmax_nll(tmp_path):
    assert ("models.py", 7) in project_findings(tmp_path, {"models.py": CHOSEN_MODELS, "train.py": NLL_OF_LOG_SOFTMAX}, "MLD001")


def test_log_softmax_held_in_a_name_for_nll_loss(tmp_path):
    assert ("models.py", 7) in project_findings(tmp_path, {"models.py": CHOSEN_MODELS, "train.py": NLL_THROUGH_A_NAME}, "MLD001")


def test_raw_scores_into_log_softmax_nll_are_quiet(tmp_path):
    assert project_findings(tmp_path, {"models.py": CHOSEN_MODELS, "train.py": NLL_OF_RAW_SCORES}, "MLD001") == []


KERAS_BASE = """
    import torch
    from torch import nn

    class Compiled(nn.Module):
        def compile(self, loss, optimizer, device="cpu"):
            self.loss_fn = loss.to(device) if isinstance(loss, nn.Module) else loss
            self.optimizer = optimizer

        def fit(self, loader):
            for xb, yb in loader:
                loss = self.loss_fn(self(xb), yb)
                loss.backward()
"""

CONFIGURED_BASE = """
    from torch import nn

    class Engine(nn.Module):
        def configure(self, criterion):
            self.criterion = criterion

        def train_on(self, x, y):
            return self.criterion(self.forward(x), y)
"""

SIGMOID_NET = """
    import torch
    from base import Compiled

    class Tagger(Compiled):
        def forward(self, x):
            return torch.sigmoid(self.fc(x))
"""

SOFTMAX_NET = """
    import torch
    from engine import Engine

    class Classifier(Engine):
        def forward(self, x):
            return self.fc(x).softmax(dim=-1)
"""


def test_loss_handed_to_a_keras_like_compile_reaches_the_subclass(tmp_path):
    run = "from torch import nn\nfrom net import Tagger\nm = Tagger()\nm.compile(loss=nn.BCEWithLogitsLoss(), optimizer=None)\n"
    found = project_findings(tmp_path, {"base.py": KERAS_BASE, "net.py": SIGMOID_NET, "run.py": run}, "MLD001")
    assert ("net.py", 7) in found


def test_loss_handed_positionally_to_a_configure_method(tmp_path):
    run = "import torch.nn as nn\nfrom net import Classifier\nc = Classifier()\nc.configure(nn.CrossEntropyLoss())\n"
    found = project_findings(tmp_path, {"engine.py": CONFIGURED_BASE, "net.py": SOFTMAX_NET, "run.py": run}, "MLD001")
    assert ("net.py", 7) in found


def test_a_probability_loss_handed_to_compile_is_quiet(tmp_path):
    run = "from torch import nn\nfrom net import Tagger\nm = Tagger()\nm.compile(loss=nn.BCELoss(), optimizer=None)\n"
    assert project_findings(tmp_path, {"base.py": KERAS_BASE, "net.py": SIGMOID_NET, "run.py": run}, "MLD001") == []


PREDICTING_NET = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def forward(self, x):
            return self.fc(x)

        def predict(self, x):
            return F.softmax(self.forward(x), dim=1)

        def probabilities(self, x):
            return self.forward(x).sigmoid()
"""

TRAINER_PREDICTS = """
    import torch.nn as nn

    class Trainer:
        def __init__(self, model, optimizer, loss_fn=nn.CrossEntropyLoss()):
            self.model = model
            self.optimizer = optimizer
            self.loss_fn = loss_fn

        def train_epoch(self, loader):
            for x, y in loader:
                out = self.model.predict(x)
                self.loss_fn(out, y).backward()

        def evaluate(self, loader):
            return [self.model.predict(x).argmax(1) for x, _ in loader]
"""

TRAINER_EVALUATES = TRAINER_PREDICTS.replace("out = self.model.predict(x)", "out = self.model(x)")

FUNCTION_PREDICTS = """
    import torch.nn.functional as F

    def fit(net, loader, opt):
        for x, y in loader:
            loss = F.binary_cross_entropy_with_logits(net.probabilities(x), y)
            loss.backward()
"""


def test_method_of_a_model_handed_to_a_trainer_with_a_default_loss(tmp_path):
    run = "from net import Net\nfrom trainer import Trainer\nTrainer(Net(), None).train_epoch([])\n"
    found = project_findings(tmp_path, {"net.py": PREDICTING_NET, "trainer.py": TRAINER_PREDICTS, "run.py": run}, "MLD001")
    assert ("net.py", 10) in found


def test_method_of_a_model_handed_to_a_function(tmp_path):
    run = "from net import Net\nfrom engine import fit\nfit(Net(), [], None)\n"
    found = project_findings(tmp_path, {"net.py": PREDICTING_NET, "engine.py": FUNCTION_PREDICTS, "run.py": run}, "MLD001")
    assert ("net.py", 13) in found


def test_method_used_only_for_evaluation_is_quiet(tmp_path):
    run = "from net import Net\nfrom trainer import Trainer\nTrainer(Net(), None).train_epoch([])\n"
    assert project_findings(tmp_path, {"net.py": PREDICTING_NET, "trainer.py": TRAINER_EVALUATES, "run.py": run}, "MLD001") == []
