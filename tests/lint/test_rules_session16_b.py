"""MLD001's cross-file pass links a name only where the using file can reach the defining one (sixteenth session,
judged on a stratified sample of the 500 repositories' findings): a repository of many scripts or sub-projects
holds many classes of one name, and a loss of one of them was joined to a model of another. Each quiet shape
beside a twin that still fires."""

from __future__ import annotations

from .families import project_findings

NET = """
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return nn.functional.softmax(self.fc(x), dim=1)
"""
RAW_NET = NET.replace("nn.functional.softmax(self.fc(x), dim=1)", "self.fc(x)")
SOFTMAX_LINE = 10
TRAIN_DEMO = """
    import torch.nn.functional as F

    def train_demo(net, optimizer, batch, labels):
        optimizer.zero_grad()
        policy = net(batch)[0]
        loss = F.cross_entropy(policy, labels)
        loss.backward()
        optimizer.step()
"""


def _found(tmp_path, files):
    return project_findings(tmp_path, files, "MLD001")


def test_a_net_of_another_chapter_is_not_the_one_a_handed_in_net_runs(tmp_path):
    """Deep-RL-Hands-On: Chapter13/lib/model_vnc.py's train_demo(net, ...) and Chapter16's Net (evolution strategies)."""
    files = {"Chapter13/lib/model_vnc.py": TRAIN_DEMO, "Chapter16/cartpole_es.py": NET}
    assert _found(tmp_path, files) == []


def test_the_only_net_of_the_same_folder_still_reaches_the_loss(tmp_path):
    files = {"Chapter16/lib/train.py": TRAIN_DEMO, "Chapter16/lib/model.py": NET}
    assert _found(tmp_path, files) == [("model.py", SOFTMAX_LINE)]


def test_two_nets_of_one_project_leave_a_handed_in_net_unknown(tmp_path):
    """Deep-RL-Hands-On's Chapter16: 01_cartpole_es.py and 03_cartpole_ga.py each define a Net."""
    files = {"Chapter16/train.py": TRAIN_DEMO, "Chapter16/cartpole_es.py": NET, "Chapter16/cartpole_ga.py": RAW_NET}
    assert _found(tmp_path, files) == []


PREDICTOR = """
    import torch
    import torch.nn as nn

    class BilinearPredictor(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.bilinear = nn.Bilinear(d, d, 1)

        def forward(self, h_src, h_dst):
            return torch.sigmoid(self.bilinear(h_src, h_dst))
"""
LINK_PREDICTION = """
    import torch.nn.functional as F

    def train(model, pairs, labels, opt):
        h = model(pairs)
        logits = model.predictor(h).squeeze()
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_a_predictor_of_another_sub_project_is_not_the_part_a_handed_in_model_runs(tmp_path):
    """dgl: dglgo's BilinearPredictor (sigmoid, BCELoss in dglgo) and examples/graphbolt/quickstart/link_prediction.py."""
    files = {"dglgo/dglgo/model/edge_encoder/bilinear.py": PREDICTOR,
             "examples/graphbolt/quickstart/link_prediction.py": LINK_PREDICTION}
    assert _found(tmp_path, files) == []


def test_a_predictor_beside_the_training_script_still_reaches_its_loss(tmp_path):
    files = {"examples/quickstart/bilinear.py": PREDICTOR, "examples/quickstart/link_prediction.py": LINK_PREDICTION}
    assert _found(tmp_path, files) == [("bilinear.py", 11)]


DISCRIMINATOR = """
    import torch.nn as nn

    class Discriminator(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 2), {last})

        def forward(self, x):
            return self.layers(x)
"""
FIXED = """
    import torch.nn.functional as F
    from network import Adver_network

    class Fixed:
        def __init__(self, d):
            self.discriminator = Adver_network.Discriminator(d)

        def update(self, x, labels):
            disc_out = self.discriminator(x)
            return F.cross_entropy(disc_out, labels)
"""


def test_the_class_a_file_imports_wins_over_another_of_the_same_name(tmp_path):
    """transferlearning: code/deep/fixed/alg/algs/Fixed.py uses network/Adver_network.Discriminator (raw scores), not
    code/DeepDA/loss_funcs/adv.py's Discriminator (sigmoid, trained with BCELoss)."""
    files = {"code/deep/fixed/alg/algs/Fixed.py": FIXED,
             "code/deep/fixed/network/Adver_network.py": DISCRIMINATOR.format(last="nn.Identity()"),
             "code/DeepDA/loss_funcs/adv.py": DISCRIMINATOR.format(last="nn.Sigmoid()")}
    assert _found(tmp_path, files) == []


def test_the_imported_class_still_reaches_the_loss(tmp_path):
    files = {"code/deep/fixed/alg/algs/Fixed.py": FIXED,
             "code/deep/fixed/network/Adver_network.py": DISCRIMINATOR.format(last="nn.Softmax(dim=1)"),
             "code/DeepDA/loss_funcs/adv.py": DISCRIMINATOR.format(last="nn.Identity()")}
    assert _found(tmp_path, files) == [("Adver_network.py", 7), ("Fixed.py", 11)]


GCN = """
    import torch.nn as nn
    import torch.nn.functional as F

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 3)

        def forward(self, x):
            return {out}
"""
EXPLAIN = """
    import torch.nn.functional as F
    from {module} import GCN

    def fit(x, y, opt):
        model = GCN()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_a_model_imported_from_the_package_is_not_a_benchmark_script_of_the_same_name(tmp_path):
    """pytorch_geometric: examples/explain/*.py import GCN from torch_geometric.nn (raw scores); benchmark/kernel/gcn.py
    defines its own GCN returning log_softmax."""
    files = {"torch_geometric/nn/models/basic_gnn.py": GCN.format(out="self.lin(x)"),
             "torch_geometric/nn/__init__.py": "from .models.basic_gnn import GCN\n",
             "benchmark/kernel/gcn.py": GCN.format(out="F.log_softmax(self.lin(x), dim=-1)"),
             "examples/explain/gnn_explainer.py": EXPLAIN.format(module="torch_geometric.nn")}
    assert _found(tmp_path, files) == []


def test_a_model_imported_through_a_package_init_still_reaches_the_loss(tmp_path):
    files = {"torch_geometric/nn/models/basic_gnn.py": GCN.format(out="F.softmax(self.lin(x), dim=-1)"),
             "torch_geometric/nn/__init__.py": "from .models.basic_gnn import GCN\n",
             "benchmark/kernel/gcn.py": GCN.format(out="self.lin(x)"),
             "examples/explain/gnn_explainer.py": EXPLAIN.format(module="torch_geometric.nn")}
    assert sorted(_found(tmp_path, files)) == [("basic_gnn.py", 11), ("gnn_explainer.py", 7)]


RESA = """
    import torch
    import torch.nn as nn
    from models.registry import NET

    @NET.register_module
    class RESANet(nn.Module):
        def __init__(self):
            super().__init__()
            self.seg = nn.Conv2d(8, 5, 1)
            self.exist = nn.Linear(8, 4)

        def forward(self, x):
            return {"seg": self.seg(x), "exist": torch.sigmoid(self.exist(x.mean((2, 3))))}
"""
TRAINER = """
    import torch
    from runner.registry import TRAINER

    @TRAINER.register_module
    class RESA(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.criterion_exist = torch.nn.BCEWithLogitsLoss()

        def forward(self, net, batch):
            output = net(batch["img"])
            return self.criterion_exist(output["exist"], batch["exist"].float())
"""


def test_a_model_handed_in_is_any_model_of_the_trainers_project(tmp_path):
    """resa: runner/resa_trainer.py feeds `net(batch)['exist']` to BCEWithLogitsLoss; models/resa.py's RESANet ends
    it in a sigmoid (judged true): the trainer's package is imported from the folder that holds models/."""
    files = {"models/resa.py": RESA, "runner/resa_trainer.py": TRAINER}
    assert _found(tmp_path, files) == [("resa.py", 14)]


def test_a_model_handed_in_is_not_a_model_of_another_project(tmp_path):
    files = {"lanes/models/resa.py": RESA, "other/runner/resa_trainer.py": TRAINER}
    assert _found(tmp_path, files) == []
