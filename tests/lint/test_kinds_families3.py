"""MLD001 families of blind split 3 (a model's softmax or log_softmax reaching a trainer's logit loss by a path
the earlier facts did not follow), each with variations of its own and correct twins that stay quiet:
a model handed to a method of a trainer object of another file (`LocalUpdate(...).train(net=copy.deepcopy(m))`),
a method other than forward taking the loss (`model.project(x)`, through a factory of another file), and a loss
handed by the training script to the model's constructor, whose forward computes it (`Net(criterion=...)`)."""

import pytest

from .families import found as _found
from .families import marked as _marked

TRAINER_OBJECT = {
    "federated_client_deepcopy": {
        "nets.py": """
            class MLP(nn.Module):
                def __init__(self, d, k):
                    super().__init__()
                    self.fc = nn.Linear(d, k)
                    self.softmax = nn.Softmax(dim=1)
                def forward(self, x):
                    return self.softmax(self.fc(x))  # MLD001
            class SmallCNN(nn.Module):
                def __init__(self, k):
                    super().__init__()
                    self.fc = nn.Linear(16, k)
                def forward(self, x):
                    x = self.fc(x.flatten(1))
                    return F.log_softmax(x, dim=1)  # MLD001
            """,
        "update.py": """
            class LocalUpdate(object):
                def __init__(self, args, dataset=None):
                    self.args = args
                    self.loss_func = nn.CrossEntropyLoss()
                    self.loader = dataset
                def train(self, net):
                    net.train()
                    for images, labels in self.loader:
                        log_probs = net(images)
                        loss = self.loss_func(log_probs, labels)
                        loss.backward()
                    return net.state_dict()
            """,
        "main.py": """
            import copy
            from nets import MLP, SmallCNN
            from update import LocalUpdate
            def run(args, use_cnn):
                if use_cnn:
                    net_glob = SmallCNN(10).to(args.device)
                else:
                    net_glob = MLP(784, 10).to(args.device)
                for idx in range(args.users):
                    local = LocalUpdate(args=args, dataset=[])
                    w = local.train(net=copy.deepcopy(net_glob).to(args.device))
                    net_glob.load_state_dict(w)
            """,
    },
    "trainer_built_and_called_in_one_expression": {
        "model.py": """
            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Linear(8, 1)
                def forward(self, x):
                    return torch.sigmoid(self.head(x))  # MLD001
            """,
        "engine.py": """
            class Engine:
                def __init__(self, cfg):
                    self.cfg = cfg
                def fit(self, model, loader, epochs=1):
                    for _ in range(epochs):
                        for x, y in loader:
                            F.binary_cross_entropy_with_logits(model(x), y).backward()
            """,
        "run.py": """
            from model import Scorer
            from engine import Engine
            scorer = Scorer()
            scorer = scorer.cuda()
            Engine({"lr": 0.1}).fit(scorer, [])
            """,
    },
    "client_of_the_same_file": {
        "fed.py": """
            import copy
            class SoftNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)  # MLD001
            class Client:
                def __init__(self, lr):
                    self.criterion = nn.CrossEntropyLoss()
                def local_train(self, model, batches):
                    for x, y in batches:
                        self.criterion(model(x), y).backward()
            client = Client(0.1)
            client.local_train(copy.deepcopy(SoftNet()), [])
            """,
    },
    "workers_in_a_list_and_a_client_keeping_a_copy": {
        "nets.py": """
            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)  # MLD001
            """,
        "client.py": """
            import copy
            class Client:
                def __init__(self, cid, model):
                    self.model = copy.deepcopy(model)
                    self.loss = nn.CrossEntropyLoss()
                def train(self, loader):
                    for x, y in loader:
                        self.loss(self.model(x), y).backward()
            class Worker:
                def __init__(self, cid):
                    self.loss = nn.CrossEntropyLoss()
                def fit(self, model, loader):
                    for x, y in loader:
                        self.loss(model(x), y).backward()
            """,
        "main.py": """
            import copy
            from nets import MLP
            from client import Client, Worker
            global_model = MLP()
            workers = [Worker(i) for i in range(10)]
            for w in workers:
                w.fit(copy.deepcopy(global_model), [])
            """,
        "main2.py": """
            from nets import MLP
            from client import Client
            clients = [Client(i, MLP()) for i in range(10)]
            clients[0].train([])
            """,
    },
}
TRAINER_OBJECT_QUIET = {
    "nll_client_raw_client_and_an_evaluator": {
        "nets.py": """
            class LogNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)
            class RawNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return self.fc(x)
            class ProbNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)
            """,
        "clients.py": """
            class NLLClient:
                def __init__(self):
                    self.loss_func = nn.NLLLoss()
                def train(self, net, batches):
                    for x, y in batches:
                        self.loss_func(net(x), y).backward()
            class CEClient:
                def __init__(self):
                    self.loss_func = nn.CrossEntropyLoss()
                def train(self, net, batches):
                    for x, y in batches:
                        self.loss_func(net(x), y).backward()
            class Evaluator:
                def evaluate(self, net, batches):
                    return sum((net(x).argmax(1) == y).sum() for x, y in batches)
            """,
        "main.py": """
            import copy
            from nets import LogNet, RawNet, ProbNet
            from clients import NLLClient, CEClient, Evaluator
            NLLClient().train(copy.deepcopy(LogNet()), [])
            client = CEClient()
            client.train(net=copy.deepcopy(RawNet()), batches=[])
            Evaluator().evaluate(ProbNet(), [])
            """,
    },
}

MODEL_METHOD = {
    "projection_of_a_transformer_built_by_a_factory": {
        "model.py": """
            class ProjectionLayer(nn.Module):
                def __init__(self, d_model, vocab):
                    super().__init__()
                    self.proj = nn.Linear(d_model, vocab)
                def forward(self, x):
                    return torch.log_softmax(self.proj(x), dim=-1)  # MLD001
            class Seq2Seq(nn.Module):
                def __init__(self, encoder, projection):
                    super().__init__()
                    self.encoder = encoder
                    self.projection = projection
                def encode(self, src):
                    return self.encoder(src)
                def project(self, x):
                    return self.projection(x)
            def build_seq2seq(d_model, vocab):
                projection = ProjectionLayer(d_model, vocab)
                model = Seq2Seq(nn.Linear(d_model, d_model), projection)
                return model
            """,
        "train.py": """
            from model import build_seq2seq
            def get_model(cfg):
                return build_seq2seq(cfg["d"], cfg["vocab"])
            def train(cfg, loader):
                model = get_model(cfg).to("cuda")
                loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
                for src, label in loader:
                    out = model.project(model.encode(src))
                    loss_fn(out.view(-1, cfg["vocab"]), label.view(-1)).backward()  # MLD001
            """,
    },
    "classify_method_of_an_imported_class": {
        "net.py": """
            class Detector(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Linear(8, 8)
                    self.cls = nn.Linear(8, 1)
                def forward(self, x):
                    return self.body(x)
                def classify(self, h):
                    return self.cls(h).sigmoid()  # MLD001
            """,
        "fit.py": """
            from net import Detector
            net = Detector().to("cuda")
            criterion = nn.BCEWithLogitsLoss()
            def step(x, y):
                return criterion(net.classify(net(x)), y)  # MLD001
            """,
        "ddp.py": """
            from net import Detector
            ddp = nn.parallel.DistributedDataParallel(Detector())
            def step(x, y):
                return F.binary_cross_entropy_with_logits(ddp.module.classify(ddp(x)), y)  # MLD001
            """,
    },
    "decode_method_in_the_same_file": {
        "seq.py": """
            class Decoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 100)
                def forward(self, h):
                    return self.out(h)
                def decode(self, h):
                    return F.softmax(self.out(h), dim=-1)  # MLD001
            def train(batches):
                decoder = Decoder()
                for h, y in batches:
                    F.cross_entropy(decoder.decode(h), y).backward()
            """,
    },
    "generator_kept_by_an_encoder_decoder": {
        "transformer.py": """
            class Generator(nn.Module):
                def __init__(self, d_model, vocab):
                    super().__init__()
                    self.proj = nn.Linear(d_model, vocab)
                def forward(self, x):
                    return F.log_softmax(self.proj(x), dim=-1)  # MLD001
            class EncoderDecoder(nn.Module):
                def __init__(self, encoder, generator):
                    super().__init__()
                    self.encoder = encoder
                    self.generator = generator
                def forward(self, src):
                    return self.encoder(src)
            def make_model(vocab, d_model=8):
                return EncoderDecoder(nn.Linear(d_model, d_model), Generator(d_model, vocab))
            """,
        "train.py": """
            from transformer import make_model
            model = make_model(100)
            criterion = nn.CrossEntropyLoss()
            def step(src, tgt):
                out = model(src)
                return criterion(model.generator(out).view(-1, 100), tgt.view(-1))  # MLD001
            """,
    },
}
MODEL_METHOD_QUIET = {
    "raw_projection_and_log_probabilities_into_nll": {
        "model.py": """
            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Linear(8, 5)
                def forward(self, x):
                    return x
                def project(self, x):
                    return self.proj(x)
                def scores(self, x):
                    return F.log_softmax(self.proj(x), dim=-1)
                def probabilities(self, x):
                    return F.softmax(self.proj(x), dim=-1)
            def build_tagger():
                return Tagger()
            class LogHead(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Linear(8, 5)
                def forward(self, x):
                    return F.log_softmax(self.proj(x), dim=-1)
            class WithHead(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = LogHead()
                    self.body = nn.Linear(8, 8)
                def forward(self, x):
                    return self.body(x)
            """,
        "kl.py": """
            from model import WithHead
            net = WithHead()
            def step(x, target_dist, y):
                kl = nn.KLDivLoss(reduction="batchmean")(net.head(net(x)), target_dist)
                return kl + F.cross_entropy(net.body(x), y)
            """,
        "train.py": """
            from model import build_tagger, Tagger
            model = build_tagger()
            other = Tagger()
            def step(x, y):
                loss = F.cross_entropy(model.project(x), y) + nn.NLLLoss()(other.scores(x), y)
                accuracy = (model.probabilities(x).argmax(-1) == y).float().mean()
                return loss, accuracy
            """,
    },
}

LOSS_TO_CONSTRUCTOR = {
    "segmentation_net_given_its_criterion": {
        "network.py": """
            class SegNet(nn.Module):
                def __init__(self, classes, criterion, aux_criterion=None):
                    super().__init__()
                    self.head = nn.Conv2d(8, classes, 1)
                    self.criterion = criterion
                def forward(self, data, label=None):
                    pred = F.interpolate(self.head(data), scale_factor=4)
                    pred = F.log_softmax(pred, dim=1)  # MLD001
                    if label is not None:
                        return self.criterion(pred, label)
                    return pred
            """,
        "train.py": """
            from network import SegNet
            criterion = nn.CrossEntropyLoss(reduction="mean", ignore_index=255)
            model = SegNet(19, criterion=criterion)
            """,
    },
    "loss_handed_by_position_to_a_training_function": {
        "engine.py": """
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # MLD001
            def fit(loader, loss_fn, epochs=3):
                model = Net()
                for _ in range(epochs):
                    for x, y in loader:
                        loss_fn(model(x), y).backward()
            """,
        "main.py": """
            import engine
            engine.fit([], nn.BCEWithLogitsLoss(), epochs=5)
            """,
    },
    "criterion_kept_by_a_wrapper_module": {
        "wrapper.py": """
            class WithLoss(nn.Module):
                def __init__(self, loss):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.loss = loss
                def forward(self, x, y):
                    probs = self.fc(x).softmax(dim=-1)  # MLD001
                    return self.loss(probs, y)
            """,
        "main.py": """
            from wrapper import WithLoss
            net = WithLoss(loss=nn.CrossEntropyLoss())
            """,
    },
}
LOSS_TO_CONSTRUCTOR_QUIET = {
    "nll_handed_and_callers_that_disagree": {
        "network.py": """
            class LogNet(nn.Module):
                def __init__(self, criterion):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.criterion = criterion
                def forward(self, x, y):
                    return self.criterion(F.log_softmax(self.fc(x), dim=1), y)
            class EitherNet(nn.Module):
                def __init__(self, criterion):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.criterion = criterion
                def forward(self, x, y):
                    return self.criterion(F.log_softmax(self.fc(x), dim=1), y)
            class RawNet(nn.Module):
                def __init__(self, criterion):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.criterion = criterion
                def forward(self, x, y):
                    return self.criterion(self.fc(x), y)
            """,
        "train.py": """
            from network import LogNet, EitherNet, RawNet
            a = LogNet(nn.NLLLoss())
            b = EitherNet(criterion=nn.NLLLoss())
            c = EitherNet(criterion=nn.CrossEntropyLoss())
            d = RawNet(nn.CrossEntropyLoss())
            """,
    },
}

# a model picked from a table of classes by a key (a config's architecture name): each class listed is fed
REGISTRY = {
    "models_table_nested_config_and_constant_key": {
        "nets.py": """
            class UNetA(nn.Module):
                def __init__(self, num_classes=2):
                    super().__init__()
                    self.fc = nn.Linear(4, num_classes)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)  # MLD001
            class UNetB(nn.Module):
                def __init__(self, num_classes=2):
                    super().__init__()
                    self.fc = nn.Linear(4, num_classes)
                def forward(self, x):
                    return self.fc(x)
            class Probs(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # MLD001
            """,
        "train.py": """
            from nets import UNetA, UNetB
            MODELS = {"a": UNetA, "b": UNetB}
            def main(args, loader):
                model = MODELS[args.arch](num_classes=3).cuda()
                criterion = nn.CrossEntropyLoss()
                for x, y in loader:
                    criterion(model(x), y).backward()
            """,
        "seg.py": """
            from nets import UNetB, Probs
            import nets
            def build(encoder):
                configs = {"plain": {"model": UNetB, "config": {}}, "binary": {"model": Probs, "config": {}}}
                config = configs[encoder]
                return config["model"](**config["config"])
            def fit(encoder, loader):
                net = build(encoder)
                for x, y in loader:
                    F.binary_cross_entropy_with_logits(net(x), y).backward()
            """,
    },
}
REGISTRY_QUIET = {
    "constant_key_and_nll_table": {
        "nets.py": """
            class LogNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)
            class RawNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return self.fc(x)
            """,
        "train.py": """
            from nets import LogNet, RawNet
            TABLE = {"log": LogNet, "raw": RawNet}
            def main(arch, loader):
                raw = TABLE["raw"]()
                picked = TABLE[arch]()
                for x, y in loader:
                    (F.cross_entropy(raw(x), y) + F.nll_loss(picked(x), y)).backward()
            """,
    },
}

# a class picked by name from an imported module: any model of that module may be the one the loss takes
BY_NAME = {
    "getattr_and_dict_of_a_models_module": {
        "models.py": """
            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 4)
                def forward(self, x):
                    return F.relu(self.fc(x))
            class MLP(nn.Module):
                def __init__(self, num_classes=10):
                    super().__init__()
                    self.block = Block()
                    self.fc = nn.Linear(4, num_classes)
                def forward(self, x):
                    h = self.block(x)
                    return F.log_softmax(self.fc(h), dim=1)  # MLD001
            """,
        "networks.py": """
            class Tiny(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    h = self.fc(x)
                    return torch.sigmoid(h)  # MLD001
            """,
        "train.py": """
            import models
            def main(args, loader):
                model = getattr(models, args.model)(num_classes=10)
                for x, y in loader:
                    nn.CrossEntropyLoss()(model(x), y).backward()
            """,
        "cifar.py": """
            import models
            import networks as nets
            def run(cfg, loader):
                net = models.__dict__[cfg.arch]().cuda()
                scorer = getattr(nets, cfg["scorer"])()
                for x, y in loader:
                    F.cross_entropy(net(x), y).backward()
                    F.binary_cross_entropy_with_logits(scorer(x), y).backward()
            """,
    },
}
BY_NAME_QUIET = {
    "nll_trainer_and_a_raw_models_module": {
        "lognets.py": """
            class LogNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    h = self.fc(x)
                    return F.log_softmax(h, dim=1)
            """,
        "rawnets.py": """
            class RawNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    h = self.fc(x)
                    return h
            """,
        "train.py": """
            import lognets
            import rawnets
            def main(args, loader):
                model = getattr(lognets, args.model)()
                raw = getattr(rawnets, args.model)()
                for x, y in loader:
                    (F.nll_loss(model(x), y) + F.cross_entropy(raw(x), y)).backward()
            """,
    },
}

# a factory choosing among models by a config name: each model it may return is the one the loss may take
FACTORY_CHOICE = {
    "arch_factory_into_a_loss_and_into_a_trainer": {
        "nets.py": """
            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.softmax = nn.Softmax(dim=1)
                def forward(self, x):
                    return self.softmax(self.fc(x))  # MLD001
            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)  # MLD001
            class Raw(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return self.fc(x)
            def get_model(arch, device):
                if arch == "mlp":
                    return MLP().to(device)
                elif arch == "cnn":
                    model = CNN()
                    return model
                return Raw()
            """,
        "train.py": """
            from nets import get_model
            def main(args, loader):
                model = get_model(args.arch, "cuda")
                criterion = nn.CrossEntropyLoss()
                for x, y in loader:
                    criterion(model(x), y).backward()
            """,
    },
    "arch_factory_handed_to_an_engine": {
        "zoo.py": """
            class Small(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # MLD001
            class Big(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    return self.fc(x)
            def create(name):
                if name == "small":
                    return Small()
                return Big()
            """,
        "engine.py": """
            def train_one_epoch(model, loader):
                for x, y in loader:
                    F.binary_cross_entropy_with_logits(model(x), y).backward()
            """,
        "main.py": """
            import zoo
            from engine import train_one_epoch
            train_one_epoch(zoo.create("small"), [])
            """,
    },
}
FACTORY_CHOICE_QUIET = {
    "log_softmax_factory_into_nll_and_a_factory_only_evaluated": {
        "nets.py": """
            class A(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)
            class B(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return self.fc(x)
            class P(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)
            def make(name):
                if name == "a":
                    return A()
                return B()
            def make_scorer(name):
                if name == "p":
                    return P()
                return B()
            """,
        "train.py": """
            from nets import make, make_scorer
            def main(args, loader):
                model = make(args.arch)
                scorer = make_scorer(args.arch)
                for x, y in loader:
                    F.nll_loss(model(x), y).backward()
                    accuracy = (scorer(x).argmax(1) == y).float().mean()
            """,
    },
}

CASES = {**FACTORY_CHOICE, **FACTORY_CHOICE_QUIET, **BY_NAME, **BY_NAME_QUIET, **REGISTRY, **REGISTRY_QUIET, **TRAINER_OBJECT, **TRAINER_OBJECT_QUIET, **MODEL_METHOD, **MODEL_METHOD_QUIET, **LOSS_TO_CONSTRUCTOR,
         **LOSS_TO_CONSTRUCTOR_QUIET}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fires_exactly_at_the_marked_lines(tmp_path, name):
    files = CASES[name]
    assert _found(tmp_path, files) == _marked(files)


@pytest.mark.parametrize("name", ["federated_client_deepcopy", "projection_of_a_transformer_built_by_a_factory",
                                  "segmentation_net_given_its_criterion"])
def test_same_findings_with_worker_processes(tmp_path, name):
    files = CASES[name]
    assert _found(tmp_path, files, jobs=2) == _marked(files)
