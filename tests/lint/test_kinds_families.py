"""MLD001 across the files of one run, on the shapes real projects ship (development corpus g1-act-*, blind2):
a part of a model handed in (`transformer.decoder`), an entry of a dict a model handed in returns
(`output['exist']`), a base class's step that hands `self(x)` to the `self.criterion` a subclass keeps, a
factory of another file (`build_model()`), and a prediction handed as `logits=`. Each family has variations that
fire (the lines marked `# MLD001`, in whichever file) and correct twins that stay quiet."""

import pytest

from .families import found as _found
from .families import marked as _marked

# a part of a model handed in: known by its class's last word when its file has one model so named
PART = {
    "decoder_softmax_module": {
        "decoder.py": """
            class TransformerDecoder(nn.Module):
                def __init__(self, d, vocab):
                    super().__init__()
                    self.proj = nn.Linear(d, vocab)
                    self.softmax = nn.Softmax(dim=-1)
                def forward(self, tokens, memory):
                    scores = self.proj(tokens + memory)
                    return self.softmax(scores)  # MLD001
            class DecoderTest:
                def test_shape(self):
                    pass
            """,
        "trainer.py": """
            def run_epoch(seq2seq, criterion, batches):
                for src, tgt in batches:
                    memory = seq2seq.encoder(src)
                    out = seq2seq.decoder(tgt, memory)[:, :-1]
                    loss = criterion(out.contiguous().permute(0, 2, 1), tgt[:, 1:])
                    loss.backward()
            def main(model, batches):
                run_epoch(model, nn.CrossEntropyLoss(), batches)
            """,
    },
    "classifier_sigmoid_head": {
        "heads.py": """
            class LinearClassifier(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.fc = nn.Linear(d, 1)
                def forward(self, h):
                    return torch.sigmoid(self.fc(h)).squeeze(-1)  # MLD001
            """,
        "loop.py": """
            bce = nn.BCEWithLogitsLoss()
            def step(network, x, y):
                feats = network.backbone(x)
                return bce(network.classifier(feats), y.float())
            """,
    },
    "decoder_log_softmax_in_a_trainer_method": {
        "attn.py": """
            class AttnDecoder(nn.Module):
                def __init__(self, d, vocab):
                    super().__init__()
                    self.out = nn.Linear(d, vocab)
                def forward(self, h):
                    return F.log_softmax(self.out(h), dim=-1)  # MLD001
            """,
        "fit.py": """
            class Trainer:
                def __init__(self):
                    self.loss_fn = nn.CrossEntropyLoss()
                def train_step(self, model, batch):
                    logits = model.decoder(batch["h"])
                    return self.loss_fn(logits.reshape(-1, logits.size(-1)), batch["y"].reshape(-1))
            """,
    },
}
PART_QUIET = {
    "two_decoders_in_one_file": {
        "decoders.py": """
            class BeamDecoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 5)
                def forward(self, h):
                    return F.softmax(self.out(h), dim=-1)
            class GreedyDecoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 5)
                def forward(self, h):
                    return self.out(h)
            """,
        "train.py": """
            def step(model, h, y):
                return F.cross_entropy(model.decoder(h), y)
            """,
    },
    "softmax_only_at_inference": {
        "decoder.py": """
            class RNNDecoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 5)
                def forward(self, h):
                    logits = self.out(h)
                    if not self.training:
                        return logits.softmax(-1)
                    return logits
            """,
        "train.py": """
            def step(model, h, y):
                out = model.decoder(h)
                loss = F.cross_entropy(out, y)
                probs = out.softmax(-1)
                return loss, probs
            """,
    },
    "log_softmax_into_nll": {
        "decoder.py": """
            class TransformerDecoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 5)
                def forward(self, h):
                    return F.log_softmax(self.out(h), dim=-1)
            """,
        "train.py": """
            def step(model, h, y):
                return F.nll_loss(model.decoder(h), y)
            """,
    },
}

# an entry of the dict a model handed in from outside returns: the key names the value
ENTRY = {
    "exist_sigmoid_in_a_returned_name": {
        "head.py": """
            class LaneExistHead(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(n, 4)
                def forward(self, x):
                    x = self.fc(x)
                    x = torch.sigmoid(x)  # MLD001
                    out = {"exist": x}
                    return out
            """,
        "losses.py": """
            class LaneLoss(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.exist_loss = nn.BCEWithLogitsLoss()
                def forward(self, output, batch):
                    return self.exist_loss(output["exist"], batch["exist"].float())
            """,
    },
    "cls_softmax_in_a_function": {
        "detector.py": """
            class Detector(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cls = nn.Linear(16, 10)
                    self.box = nn.Linear(16, 4)
                def forward(self, f):
                    return {"cls": self.cls(f).softmax(dim=-1), "box": self.box(f)}  # MLD001
            """,
        "criterion.py": """
            def detection_loss(preds, targets):
                cls_loss = F.cross_entropy(preds["cls"].view(-1, 10), targets["labels"].view(-1))
                box_loss = F.l1_loss(preds["box"], targets["boxes"])
                return cls_loss + box_loss
            """,
    },
    "entry_handed_through_a_helper": {
        "net.py": """
            class SegNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Conv2d(8, 3, 1)
                def forward(self, x):
                    seg = F.log_softmax(self.head(x), dim=1)  # MLD001
                    return {"seg": seg, "aux": x}
            """,
        "engine.py": """
            criterion = nn.CrossEntropyLoss()
            def compute(outputs, labels):
                return criterion(outputs["seg"], labels)
            def train_batch(net, images, labels):
                return compute(net(images), labels)
            """,
    },
}
ENTRY_QUIET = {
    "logits_and_probabilities_under_two_keys": {
        "head.py": """
            class ExistHead(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    logits = self.fc(x)
                    return {"exist_logits": logits, "exist": torch.sigmoid(logits)}
            """,
        "loss.py": """
            def exist_loss(output, batch):
                a = F.binary_cross_entropy_with_logits(output["exist_logits"], batch["exist"])
                b = F.binary_cross_entropy(output["exist"], batch["exist"])
                return a + b
            """,
    },
    "log_softmax_entry_into_nll": {
        "net.py": """
            class SegNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Conv2d(8, 3, 1)
                def forward(self, x):
                    return {"seg": F.log_softmax(self.head(x), dim=1)}
            """,
        "loss.py": """
            def seg_loss(out, labels):
                return F.nll_loss(out["seg"], labels)
            """,
    },
    "probabilities_entry_for_metrics": {
        "net.py": """
            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 5)
                def forward(self, x):
                    scores = self.fc(x)
                    return {"scores": scores, "probs": scores.softmax(-1)}
            """,
        "loss.py": """
            def tag_loss(out, y):
                loss = F.cross_entropy(out["scores"], y)
                confidence = out["probs"].max(-1).values.mean()
                return loss, confidence
            """,
    },
}

# a base class's step hands self(x) to self.criterion; a subclass of another file sets both
SUBCLASS = {
    "forward_log_softmax": {
        "base.py": """
            class FederatedModel(nn.Module):
                def step(self, batch):
                    x, y = batch
                    y_pred = self.forward(x)
                    return self.criterion(y_pred, y)
            """,
        "mlp.py": """
            from base import FederatedModel
            class MNISTMLP(FederatedModel):
                def __init__(self):
                    super().__init__()
                    self.criterion = torch.nn.CrossEntropyLoss()
                    self.l1 = nn.Linear(784, 10)
                def forward(self, x):
                    x = self.l1(x.view(x.size(0), -1))
                    x = torch.log_softmax(x, dim=1)  # MLD001
                    return x
            """,
    },
    "self_call_and_a_sequential": {
        "core.py": """
            class Task(nn.Module):
                def training_step(self, batch, idx):
                    return self.loss_fn(self(batch[0]), batch[1])
            """,
        "tasks.py": """
            from core import Task
            class BinaryTask(Task):
                def __init__(self):
                    super().__init__()
                    self.loss_fn = nn.BCEWithLogitsLoss()
                    self.net = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())  # MLD001
                def forward(self, x):
                    return self.net(x).squeeze(1)
            """,
    },
    "reshaped_before_the_loss": {
        "lm.py": """
            class LanguageModel(nn.Module):
                def shared_step(self, tokens):
                    out = self(tokens[:, :-1])
                    return self.criterion(out.reshape(-1, out.size(-1)), tokens[:, 1:].reshape(-1))
            """,
        "gru.py": """
            from lm import LanguageModel
            class GRULM(LanguageModel):
                def __init__(self):
                    super().__init__()
                    self.criterion = nn.CrossEntropyLoss(ignore_index=0)
                    self.rnn = nn.GRU(8, 8)
                    self.out = nn.Linear(8, 100)
                def forward(self, x):
                    h, _ = self.rnn(x)
                    return F.softmax(self.out(h), dim=-1)  # MLD001
            """,
    },
}
SUBCLASS_QUIET = {
    "nll_subclass_and_a_raw_subclass": {
        "base.py": """
            class BaseModel(nn.Module):
                def step(self, batch):
                    x, y = batch
                    return self.criterion(self.forward(x), y)
            """,
        "models.py": """
            from base import BaseModel
            class LogProbMLP(BaseModel):
                def __init__(self):
                    super().__init__()
                    self.criterion = nn.NLLLoss()
                    self.l1 = nn.Linear(10, 3)
                def forward(self, x):
                    return torch.log_softmax(self.l1(x), dim=1)
            class RawMLP(BaseModel):
                def __init__(self):
                    super().__init__()
                    self.criterion = nn.CrossEntropyLoss()
                    self.l1 = nn.Linear(10, 3)
                def forward(self, x):
                    return self.l1(x)
                def predict(self, x):
                    return torch.softmax(self.forward(x), dim=1)
            """,
    },
}

# a factory of another file: the model it builds is what the loss's file calls
FACTORY = {
    "wrapper_around_a_sequential": {
        "net.py": """
            class Wrapper(nn.Module):
                def __init__(self, body):
                    super().__init__()
                    self.body = body
                def forward(self, x):
                    return self.body(x)
            def build():
                return Wrapper(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=1)))  # MLD001
            """,
        "fit.py": """
            from net import build
            def fit(model, loader, loss=nn.CrossEntropyLoss()):
                for x, y in loader:
                    loss(model(x), y).backward()  # MLD001
            fit(build(), [])
            """,
    },
    "factory_picks_a_class": {
        "models.py": """
            class SmallCNN(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(16, n)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)  # MLD001
            def get_model(num_classes):
                model = SmallCNN(num_classes)
                return model
            """,
        "train.py": """
            from models import get_model
            model = get_model(10).cuda()
            criterion = nn.CrossEntropyLoss()
            for x, y in []:
                loss = criterion(model(x), y)  # MLD001
            """,
    },
    "local_factory_of_an_imported_class": {
        "networks.py": """
            class ConsensusRNN(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(8, n)
                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # MLD001
            """,
        "trainer.py": """
            from networks import ConsensusRNN
            def create_model():
                net = ConsensusRNN(5)
                return net
            model = create_model()
            bce = nn.BCEWithLogitsLoss()
            for x, y in []:
                bce(model(x), y)  # MLD001
            """,
    },
}
FACTORY_QUIET = {
    "logits_log_softmax_and_inference_factories": {
        "net.py": """
            class Wrapper(nn.Module):
                def __init__(self, body):
                    super().__init__()
                    self.body = body
                def forward(self, x):
                    return self.body(x)
            def build():
                return Wrapper(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
            def build_nll():
                return Wrapper(nn.Sequential(nn.Linear(4, 3), nn.LogSoftmax(dim=1)))
            def inference_model():
                return nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
            """,
        "fit.py": """
            from net import build, build_nll, inference_model
            def fit(model, loader, loss=nn.CrossEntropyLoss()):
                for x, y in loader:
                    loss(model(x), y).backward()
            fit(build(), [])
            m = build_nll()
            for x, y in []:
                F.nll_loss(m(x), y)
            print(inference_model()(torch.zeros(1, 4)).argmax(1))
            """,
    },
}

# handed as logits=: the callee normalises what it is given
KEYWORD = {
    "framework_loss_across_files": {
        "networks.py": """
            class ConsensusRNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gru = nn.GRU(10, 8, batch_first=True)
                    self.classifier = nn.Linear(8, 5)
                def forward(self, encoding):
                    encoding, _ = self.gru(encoding)
                    encoding = self.classifier(encoding)
                    return F.softmax(encoding, dim=2)  # MLD001
            """,
        "trainer.py": """
            from nemo_like import CrossEntropyLossNM
            from networks import ConsensusRNN
            model = ConsensusRNN()
            ce = CrossEntropyLossNM(logits_ndim=3)
            def train_step(encoding, labels):
                out = model(encoding=encoding)
                return ce(logits=out, labels=labels)  # MLD001
            """,
    },
    "categorical_of_probabilities": {
        "policy.py": """
            from torch.distributions import Categorical
            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)
                def act(self, obs):
                    probs = F.softmax(self.fc(obs), dim=-1)  # MLD001
                    dist = Categorical(logits=probs)
                    return dist.sample()
            """,
    },
    "sigmoid_into_a_logits_keyword": {
        "loss.py": """
            def focal(logits, targets):
                return logits.mean()
            def step(model, x, y):
                scores = torch.sigmoid(model(x))  # MLD001
                return focal(logits=scores, targets=y)
            """,
    },
}
KEYWORD_QUIET = {
    "log_probabilities_and_probs_keyword": {
        "policy.py": """
            from torch.distributions import Categorical
            def act(net, obs):
                dist = Categorical(logits=F.log_softmax(net(obs), dim=-1))
                raw = Categorical(logits=net(obs))
                other = Categorical(probs=torch.softmax(net(obs), -1))
                return dist.sample(), raw.sample(), other.sample()
            """,
    },
}

# a framework estimator handed a model class of another file trains it with its (default) loss
FRAMEWORK = {
    "skorch_criterion_given": {
        "module.py": """
            class TabularNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Linear(20, 2)
                def forward(self, X):
                    return F.softmax(self.dense(X), dim=-1)  # MLD001
            """,
        "fit.py": """
            from skorch import NeuralNetClassifier
            from module import TabularNet
            net = NeuralNetClassifier(TabularNet, criterion=nn.CrossEntropyLoss, max_epochs=5)  # MLD001
            """,
    },
    "skada_default_criterion": {
        "backbones.py": """
            class ShallowNet(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.feature_layer = nn.Linear(8, 16)
                    self.head = nn.Linear(16, n)
                def forward(self, x, sample_weight=None):
                    x = self.head(torch.relu(self.feature_layer(x)))
                    return nn.LogSoftmax(dim=1)(x)  # MLD001
            """,
        "solver.py": """
            from skada.deep import DeepCoral
            from backbones import ShallowNet
            def get_estimator(n):
                model = ShallowNet(n)
                return DeepCoral(model, layer_name="feature_layer", max_epochs=1)  # MLD001
            """,
    },
    "skorch_binary_default": {
        "nets.py": """
            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(10, 1)
                def forward(self, X):
                    return torch.sigmoid(self.fc(X)).squeeze(-1)  # MLD001
            """,
        "run.py": """
            from skorch import NeuralNetBinaryClassifier
            import nets
            clf = NeuralNetBinaryClassifier(module=nets.Scorer, lr=0.1)  # MLD001
            """,
    },
}
FRAMEWORK_QUIET = {
    "skorch_nll_default_and_a_raw_module": {
        "module.py": """
            class ProbNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Linear(20, 2)
                def forward(self, X):
                    return F.softmax(self.dense(X), dim=-1)
            class RawNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Linear(20, 2)
                def forward(self, X):
                    return self.dense(X)
            """,
        "fit.py": """
            from skorch import NeuralNetClassifier
            from module import ProbNet, RawNet
            a = NeuralNetClassifier(ProbNet, max_epochs=5)
            b = NeuralNetClassifier(RawNet, criterion=nn.CrossEntropyLoss)
            """,
    },
    "skada_with_an_nll_base_criterion": {
        "backbones.py": """
            class LogProbNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)
            """,
        "solver.py": """
            from skada.deep import DeepCoral
            from backbones import LogProbNet
            net = DeepCoral(LogProbNet(), layer_name="fc", base_criterion=nn.NLLLoss())
            """,
    },
}

# a wrapper whose call runs the model it is given
WRAPPED = {
    "data_parallel_in_main": {
        "model.py": """
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(10, 3)
                    self.softmax = nn.Softmax(dim=1)
                def forward(self, x):
                    x = self.fc1(x)
                    x = self.softmax(x)  # MLD001
                    return x
            """,
        "main.py": """
            from model import Net
            def train(model, loader, optimizer):
                criterion = nn.CrossEntropyLoss()
                for data, target in loader:
                    output = model(data)
                    loss = criterion(output, target)  # MLD001
            def main():
                model = Net().cuda()
                model = nn.DataParallel(model)
                train(model, [], None)
            """,
    },
    "ddp_with_keywords": {
        "net.py": """
            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(8, 4)
                def forward(self, h):
                    return torch.sigmoid(self.out(h))  # MLD001
            """,
        "dist.py": """
            from torch.nn.parallel import DistributedDataParallel as DDP
            from net import Tagger
            ddp = DDP(Tagger().cuda(), device_ids=[0])
            loss_fn = nn.BCEWithLogitsLoss()
            for h, y in []:
                loss_fn(ddp(h), y).backward()  # MLD001
            """,
    },
    "compiled_model": {
        "lm.py": """
            class TinyLM(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.emb = nn.Embedding(100, 8)
                    self.head = nn.Linear(8, 100)
                def forward(self, idx):
                    return F.log_softmax(self.head(self.emb(idx)), dim=-1)  # MLD001
            """,
        "train.py": """
            from lm import TinyLM
            model = torch.compile(TinyLM())
            for idx, tgt in []:
                logits = model(idx)
                F.cross_entropy(logits.view(-1, 100), tgt.view(-1)).backward()  # MLD001
            """,
    },
}
WRAPPED_QUIET = {
    "data_parallel_of_a_logits_model": {
        "model.py": """
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(10, 3)
                def forward(self, x):
                    return self.fc1(x)
            """,
        "main.py": """
            from model import Net
            model = nn.DataParallel(Net())
            for data, target in []:
                output = model(data)
                loss = F.cross_entropy(output, target)
                probs = F.softmax(output, dim=1)
            """,
    },
}

# a pretrained model whose output layer this file replaces: its output is the new layer's
HEAD = {
    "resnet_fc_softmax": {
        "finetune.py": """
            from torchvision import models
            model_ft = models.resnet18(pretrained=True)
            model_ft.fc = nn.Sequential(nn.Linear(model_ft.fc.in_features, 2), nn.Softmax(dim=1))  # MLD001
            model_ft = model_ft.to("cuda")
            criterion = nn.CrossEntropyLoss()
            for inputs, labels in []:
                outputs = model_ft(inputs)
                _, preds = torch.max(outputs, 1)
                loss = criterion(outputs, labels)
            """,
    },
    "vgg_classifier_slot_sigmoid": {
        "binary.py": """
            import torchvision
            vgg = torchvision.models.vgg16(weights="DEFAULT")
            vgg.classifier[6] = nn.Sequential(nn.Linear(4096, 1), nn.Sigmoid())  # MLD001
            bce = nn.BCEWithLogitsLoss()
            for x, y in []:
                bce(vgg(x).squeeze(1), y.float()).backward()
            """,
    },
    "timm_head_in_a_training_function": {
        "train.py": """
            import timm
            def train_model(model, criterion, loader):
                for x, y in loader:
                    loss = criterion(model(x), y)
                    loss.backward()
            net = timm.create_model("vit_small_patch16_224", pretrained=True)
            net.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(384, 10), nn.LogSoftmax(dim=-1))  # MLD001
            train_model(net, nn.CrossEntropyLoss(), [])
            """,
    },
}
HEAD_QUIET = {
    "linear_head_softmax_for_predictions_and_an_nll_head": {
        "finetune.py": """
            from torchvision import models
            model = models.resnet50(pretrained=True)
            model.fc = nn.Linear(2048, 5)
            other = models.densenet121(pretrained=True)
            other.classifier = nn.Sequential(nn.Linear(1024, 5), nn.LogSoftmax(dim=1))
            for x, y in []:
                out = model(x)
                loss = F.cross_entropy(out, y) + F.nll_loss(other(x), y)
                probs = F.softmax(out, dim=1)
            """,
    },
}

# a trainer class of another file whose loss is `given or nn.CrossEntropyLoss()`: the fallback is its default
TRAINER_DEFAULT = {
    "fallback_loss_of_a_trainer_class": {
        "model.py": """
            class Classifier(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(16, n)
                def forward(self, x):
                    x = self.fc(x)
                    return F.softmax(x, dim=1)  # MLD001
            """,
        "trainer.py": """
            class Trainer:
                def __init__(self, model, criterion=None, device="cuda"):
                    self.model = model.to(device)
                    self.criterion = criterion or nn.CrossEntropyLoss()
                def fit(self, loader):
                    for x, y in loader:
                        self.criterion(self.model(x), y).backward()
            """,
        "run.py": """
            from model import Classifier
            from trainer import Trainer
            Trainer(Classifier(10)).fit([])
            """,
    },
}
TRAINER_DEFAULT_QUIET = {
    "nll_fallback_with_a_log_softmax_model": {
        "model.py": """
            class Classifier(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(16, n)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)
            """,
        "trainer.py": """
            class Trainer:
                def __init__(self, model, criterion=None):
                    self.model = model
                    self.criterion = criterion or nn.NLLLoss()
                def fit(self, loader):
                    for x, y in loader:
                        self.criterion(self.model(x), y).backward()
            """,
    },
}

# a model handed by a third file to another file's class or function whose loss takes it (the loss handed too)
HANDOFF = {
    "lightning_wrapper_class": {
        "model.py": """
            class MyNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.softmax(self.fc(x), dim=1)  # MLD001
            """,
        "lit.py": """
            import pytorch_lightning as pl
            class LitModel(pl.LightningModule):
                def __init__(self, model, lr=1e-3):
                    super().__init__()
                    self.model = model
                def training_step(self, batch, idx):
                    x, y = batch
                    return F.cross_entropy(self.model(x), y)
            """,
        "train.py": """
            from model import MyNet
            from lit import LitModel
            net = MyNet()
            lit = LitModel(net, lr=0.1)
            """,
    },
    "engine_function_with_a_handed_criterion": {
        "models.py": """
            class ConvNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                def forward(self, x):
                    return F.log_softmax(self.fc(x), dim=1)  # MLD001
            """,
        "engine.py": """
            def train_one_epoch(model, criterion, data_loader, optimizer):
                model.train()
                for samples, targets in data_loader:
                    outputs = model(samples)
                    loss = criterion(outputs, targets)
                    loss.backward()
            """,
        "main.py": """
            from models import ConvNet
            from engine import train_one_epoch
            model = ConvNet().cuda()
            criterion = nn.CrossEntropyLoss()
            train_one_epoch(model, criterion, [], None)
            """,
    },
    "trainer_keywords_and_a_factory": {
        "nets.py": """
            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)
                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # MLD001
            def build_scorer():
                return Scorer()
            """,
        "trainer.py": """
            class Trainer:
                def __init__(self, model, criterion, epochs=1):
                    self.model = model
                    self.criterion = criterion
                def fit(self, loader):
                    for x, y in loader:
                        self.criterion(self.model(x), y).backward()
            """,
        "run.py": """
            from nets import build_scorer
            from trainer import Trainer
            Trainer(model=build_scorer(), criterion=nn.BCEWithLogitsLoss()).fit([])  # MLD001
            """,
    },
}
HANDOFF_QUIET = {
    "nll_handed_with_a_log_softmax_model_and_a_raw_model": {
        "models.py": """
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
        "engine.py": """
            def train_one_epoch(model, criterion, data_loader):
                for samples, targets in data_loader:
                    criterion(model(samples), targets).backward()
            """,
        "main.py": """
            from models import LogNet, RawNet
            from engine import train_one_epoch
            train_one_epoch(LogNet(), nn.NLLLoss(), [])
            """,
        "main2.py": """
            from models import RawNet
            import engine
            engine.train_one_epoch(RawNet(), nn.CrossEntropyLoss(), [])
            """,
    },
}

CASES = {**HANDOFF, **HANDOFF_QUIET, **TRAINER_DEFAULT, **TRAINER_DEFAULT_QUIET, **HEAD, **HEAD_QUIET, **WRAPPED, **WRAPPED_QUIET, **FRAMEWORK, **FRAMEWORK_QUIET, **PART, **PART_QUIET, **ENTRY, **ENTRY_QUIET, **SUBCLASS, **SUBCLASS_QUIET, **FACTORY, **FACTORY_QUIET,
         **KEYWORD, **KEYWORD_QUIET}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fires_exactly_at_the_marked_lines(tmp_path, name):
    files = CASES[name]
    assert _found(tmp_path, files) == _marked(files)


@pytest.mark.parametrize("name", ["decoder_softmax_module", "exist_sigmoid_in_a_returned_name", "forward_log_softmax",
                                  "factory_picks_a_class"])
def test_same_findings_with_worker_processes(tmp_path, name):
    files = CASES[name]
    assert _found(tmp_path, files, jobs=2) == _marked(files)
