"""MLD020, blind split 5's families, each with fixed twins that stay quiet.

Loaded and run: a demo, scoring or inference file that loads trained weights into a model and runs it, while
nothing in the file trains or switches a mode (the forward sits in a method named anything, with or without
no_grad)."""

import textwrap

from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, path: str = "demo.py") -> list[int]:
    return sorted(f.line for f in lint_source(textwrap.dedent(source), path) if f.code == "MLD020")


DEMO_CLASS = """
    import torch
    import torch.nn as nn
    import torchvision


    class QualityNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = torchvision.models.resnet18()
            self.trunk.fc = nn.Linear(512, 1)

        def forward(self, x):
            return self.trunk(x)


    class Demo:
        def __init__(self, ckpt):
            self.net = QualityNet()
            self.restore(ckpt)

        def restore(self, ckpt):
            state = torch.load(ckpt, map_location="cpu")
            self.net.load_state_dict(state["state_dict"])

        def rate(self, image):
            image = image.unsqueeze(0)
            quality = self.net(image).mean()
            print(quality.item())
    """


def test_a_demo_class_loading_weights_and_rating_without_eval_is_reported_at_the_forward():
    assert _lines(DEMO_CLASS) == [28]


def test_the_demo_switching_to_eval_after_loading_is_quiet():
    fixed = DEMO_CLASS.replace('            self.net.load_state_dict(state["state_dict"])\n',
                               '            self.net.load_state_dict(state["state_dict"])\n'
                               '            self.net.eval()\n')
    assert _lines(fixed) == []


SCRIPT = """
    import sys
    import torch
    from models import SegNet

    net = SegNet(num_classes=4)
    net.load_state_dict(torch.load(sys.argv[1]))
    image = torch.load(sys.argv[2])
    mask = net(image).argmax(1)
    torch.save(mask, sys.argv[3])
    """


def test_a_module_level_inference_script_is_reported_after_the_load():
    assert _lines(SCRIPT, "infer_mask.py") == [7]


def test_the_script_with_eval_is_quiet():
    assert _lines(SCRIPT.replace("    image = torch", "    net.eval()\n    image = torch"), "infer_mask.py") == []


FUNCTION = """
    import torch
    from nets import build_classifier


    def main(weights, images):
        classifier = build_classifier("resnet50")
        classifier.load_state_dict(torch.load(weights)["model"])
        for path, image in images:
            label = classifier(image[None]).argmax(1).item()
            print(path, label)
    """


def test_a_function_that_loads_and_classifies_is_reported_after_the_load():
    assert _lines(FUNCTION, "classify.py") == [8]


def test_a_file_that_also_trains_is_left_to_the_other_checks():
    trains = FUNCTION + """
    def finetune(classifier, loader, opt):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(classifier(x), y).backward()
            opt.step()
    """
    assert _lines(trains, "classify.py") == []


def test_export_code_is_quiet():
    export = FUNCTION.replace("            print(path, label)", "            torch.onnx.export(classifier, image, path)")
    assert _lines(export, "classify.py") == []


# A model class's own inference method (a library's predict()/encode()): it runs the whole model on inputs it
# prepares, and nothing in the class switches the mode.
TAGGER = """
    import warnings
    import torch
    from torch import nn


    class SpanTagger(nn.Module):
        def __init__(self, encoder, tokenizer, labels):
            super().__init__()
            self.encoder, self.tokenizer = encoder, tokenizer
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(768, len(labels)))

        def forward(self, input_ids, attention_mask):
            return self.head(self.encoder(input_ids, attention_mask))

        def predict(self, texts):
            \"\"\"Tag each text.\"\"\"
            if not torch.cuda.is_available():
                warnings.warn("predicting on the CPU is slow")
            if not texts:
                return []
            return [self._predict_one(text) for text in texts]

        def _predict_one(self, text):
            inputs = self.tokenizer(text, return_tensors="pt")
            return self(**inputs).argmax(-1).tolist()
    """


def test_a_models_predict_through_a_private_helper_is_reported_past_the_docstring_and_warnings():
    assert _lines(TAGGER, "tagger.py") == [20]


def test_the_predict_that_switches_to_eval_is_quiet():
    fixed = TAGGER.replace("            if not texts:\n", "            self.eval()\n            if not texts:\n")
    assert _lines(fixed, "tagger.py") == []


CLASSIFIER = """
    import torch
    import torchvision
    from torch import nn


    class LeafClassifier(nn.Module):
        def __init__(self, transform):
            super().__init__()
            self.net = torchvision.models.resnet18(num_classes=12)
            self.transform = transform

        def forward(self, x):
            return self.net(x)

        @torch.no_grad()
        def classify(self, images):
            batch = torch.stack([self.transform(image) for image in images])
            return self.forward(batch).argmax(1)
    """


def test_a_classify_method_preparing_its_batch_is_reported():
    assert _lines(CLASSIFIER, "leaf.py") == [18]


def test_a_thin_alias_of_forward_is_left_to_its_caller():
    thin = CLASSIFIER.replace("            batch = torch.stack([self.transform(image) for image in images])\n", "")
    thin = thin.replace("self.forward(batch)", "self.forward(images)")
    assert _lines(thin, "leaf.py") == []


def test_a_class_that_restores_its_mode_is_quiet():
    restoring = CLASSIFIER.replace(
        "            batch = torch.stack", "            was_training = self.training\n            batch = torch.stack")
    assert _lines(restoring, "leaf.py") == []


def test_a_method_the_model_calls_itself_is_part_of_its_forward():
    internal = CLASSIFIER.replace("            return self.net(x)", "            return self.net(x) + self.classify(x)")
    assert _lines(internal, "leaf.py") == []


# A model handed to a class that labels training batches with it (pseudo-labels, distillation targets),
# never put in eval mode in the file.
COLLATE = """
    import torch
    from torch.utils.data import default_collate


    class PseudoLabelTask:
        def __init__(self, model, augment=None):
            self.m0 = model
            self.augment = augment

        def collate_fn(self, batch):
            collated = default_collate(batch)
            with torch.no_grad():
                collated["y"] = self.m0(collated["X"])
            return collated
    """


def test_a_collate_function_labelling_batches_with_a_handed_model_is_reported():
    assert _lines(COLLATE, "task.py") == [12]


def test_the_labeller_switched_in_init_is_quiet():
    assert _lines(COLLATE.replace("self.m0 = model\n", "self.m0 = model.eval()\n"), "task.py") == []


def test_the_model_switched_before_it_is_kept_is_quiet():
    fixed = COLLATE.replace("            self.m0 = model\n", "            model.eval()\n            self.m0 = model\n")
    assert _lines(fixed, "task.py") == []


DATASET = """
    import torch
    from torch import nn
    from torch.utils.data import Dataset


    class DistilledImages(Dataset):
        def __init__(self, images, teacher_net: nn.Module):
            self.images = images
            self.labeller = teacher_net

        def __len__(self):
            return len(self.images)

        def __getitem__(self, index):
            image = self.images[index]
            with torch.no_grad():
                soft_targets = self.labeller(image[None]).softmax(-1)[0]
            return image, soft_targets
    """


def test_a_dataset_labelling_its_items_with_a_teacher_is_reported():
    assert _lines(DATASET, "distill_data.py") == [16]


def test_an_ema_teacher_updated_from_the_student_is_left_alone():
    ema = DATASET + """
        def update(self, student, decay=0.99):
            for t, s in zip(self.labeller.parameters(), student.parameters()):
                t.data.mul_(decay).add_(s.data, alpha=1 - decay)
    """
    assert _lines(ema, "distill_data.py") == []


def test_outputs_not_kept_as_labels_are_not_this_family():
    features = DATASET.replace("soft_targets = self.labeller", "features = self.labeller").replace(
        "return image, soft_targets", "return image, features")
    assert _lines(features, "distill_data.py") == []


# The finding goes where the evaluation pass begins: the function of this file that builds the evaluation
# loader and hands the model down (a tester's get_all_embeddings()), not the helper that runs it.
TESTER = """
    import torch
    from torch.utils.data import DataLoader


    class EmbeddingTester:
        def __init__(self, batch_size):
            self.batch_size = batch_size

        def get_all_embeddings(self, dataset, model):
            loader = DataLoader(dataset, batch_size=self.batch_size)
            return self.compute_embeddings(loader, model)

        def compute_embeddings(self, loader, model):
            chunks = []
            with torch.no_grad():
                for images, _ in loader:
                    chunks.append(self.embed_for_eval(model, images))
            return torch.cat(chunks)

        def embed_for_eval(self, model, images):
            return model(images)
    """


def test_a_testers_embedding_pass_is_reported_where_it_builds_the_loader():
    assert _lines(TESTER, "tester.py") == [11]


def test_keyword_hand_offs_are_followed():
    keywords = TESTER.replace("self.compute_embeddings(loader, model)",
                              "self.compute_embeddings(loader=loader, model=model)")
    assert _lines(keywords, "tester.py") == [11]


def test_the_tester_switching_to_eval_is_quiet():
    fixed = TESTER.replace("            loader = DataLoader", "            model.eval()\n            loader = DataLoader")
    assert _lines(fixed, "tester.py") == []


FUNCTIONS = """
    import torch
    from torch.utils.data import DataLoader


    def evaluate_split(net, dataset):
        val_loader = DataLoader(dataset, batch_size=64)
        return run_eval(net, val_loader)


    def run_eval(net, loader):
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (net(x).argmax(1) == y).sum().item()
        return correct
    """


def test_module_functions_are_reported_where_the_loader_is_built():
    assert _lines(FUNCTIONS, "evaluation.py") == [7]


def test_a_helper_with_two_callers_keeps_the_finding():
    two = FUNCTIONS + """

    def evaluate_loader(net, loader):
        return run_eval(net, loader)
    """
    assert 12 in _lines(two, "evaluation.py")  # evaluate_split() still reports its own run at line 7


def test_a_checkpoint_loader_handed_the_model_counts_as_loading():
    helper = FUNCTION.replace('classifier.load_state_dict(torch.load(weights)["model"])',
                              "load_checkpoint(classifier, weights)").replace(
        "from nets import build_classifier", "from nets import build_classifier, load_checkpoint")
    assert _lines(helper, "classify.py") == [8]


# A teacher built or loaded in a training function, giving the loop its targets under no_grad, never switched.
DISTILL = """
    import torch
    import torch.nn.functional as F
    import torchvision


    def distill(student, loader, opt, ckpt, tau=4.0):
        teacher = torchvision.models.resnet50(num_classes=10)
        teacher.load_state_dict(torch.load(ckpt))
        student.train()
        for x, y in loader:
            with torch.no_grad():
                soft = F.softmax(teacher(x) / tau, dim=-1)
            loss = F.kl_div(F.log_softmax(student(x) / tau, -1), soft, reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()
    """


def test_a_loaded_teacher_giving_distillation_targets_is_reported_after_its_load():
    assert _lines(DISTILL, "distill.py") == [9]


def test_the_teacher_switched_after_loading_is_quiet():
    fixed = DISTILL.replace("        student.train()\n", "        teacher.eval()\n        student.train()\n")
    assert _lines(fixed, "distill.py") == []


def test_any_name_holding_loaded_weights_is_a_teacher():
    renamed = DISTILL.replace("teacher", "big_resnet")
    assert _lines(renamed, "distill.py") == [9]


def test_a_built_and_moved_teacher_is_reported_after_the_move():
    built = DISTILL.replace("        teacher = torchvision.models.resnet50(num_classes=10)\n"
                            "        teacher.load_state_dict(torch.load(ckpt))\n",
                            "        teacher = WideResNet(depth=40, checkpoint=ckpt)\n        teacher.to(x_device)\n")
    assert _lines("\n    from zoo import WideResNet, x_device" + built, "distill.py") == [10]


def test_a_teacher_from_another_modules_factory_may_be_switched_there():
    built = DISTILL.replace("        teacher = torchvision.models.resnet50(num_classes=10)\n"
                            "        teacher.load_state_dict(torch.load(ckpt))\n",
                            "        teacher = get_teacher_model(ckpt)\n")
    assert _lines("\n    from zoo import get_teacher_model" + built, "distill.py") == []


def test_an_ema_teacher_is_the_methods_own_choice():
    ema = DISTILL.replace("            opt.step()\n", "            opt.step()\n"
                          "            for t, s in zip(teacher.parameters(), student.parameters()):\n"
                          "                t.data.lerp_(s.data, 0.01)\n")
    assert _lines(ema, "distill.py") == []


def test_a_target_network_copy_is_left_alone():
    target = DISTILL.replace("teacher", "target_net")
    assert _lines(target, "distill.py") == []


def test_a_global_teacher_the_script_switches_is_quiet():
    script = """
    import torch
    import torch.nn.functional as F
    from zoo import Teacher

    teacher = Teacher()
    teacher.load_state_dict(torch.load("t.pt"))
    teacher.eval()


    def fit(student, loader, opt):
        for x, _ in loader:
            with torch.no_grad():
                soft = teacher(x).softmax(-1)
            loss = F.kl_div(student(x).log_softmax(-1), soft, reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()
    """
    assert _lines(script, "kd_script.py") == []
    assert _lines(script.replace("    teacher.eval()\n", ""), "kd_script.py") != []


TRAINER_TEACHER = """
    import torch
    import torch.nn.functional as F
    from zoo import build_model


    class DistillTrainer:
        def __init__(self, cfg, student, optimizer):
            self.student, self.optimizer = student, optimizer
            self.teacher = build_model(cfg.teacher_arch)
            self.teacher.load_state_dict(torch.load(cfg.teacher_ckpt))

        def train_step(self, images):
            with torch.no_grad():
                guide = self.teacher(images).softmax(-1)
            loss = F.kl_div(self.student(images).log_softmax(-1), guide, reduction="batchmean")
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
    """


def test_a_trainers_teacher_is_reported_where_the_class_sets_it_up():
    assert _lines(TRAINER_TEACHER, "kd_trainer.py") == [11]


def test_a_trainers_teacher_switched_in_init_is_quiet():
    fixed = TRAINER_TEACHER.replace("torch.load(cfg.teacher_ckpt))\n",
                                    "torch.load(cfg.teacher_ckpt))\n            self.teacher.eval()\n")
    assert _lines(fixed, "kd_trainer.py") == []


def test_helpers_of_a_utilities_file_handed_different_models_are_quiet():
    utils = """
    import torch


    def load_pretrained(model, path):
        model.load_state_dict(torch.load(path), strict=False)


    def multi_scale(images, model):
        feats = None
        for scale in (1.0, 0.5):
            out = model(torch.nn.functional.interpolate(images, scale_factor=scale))
            feats = out if feats is None else feats + out
        return feats
    """
    assert _lines(utils, "utils.py") == []


def test_a_function_named_load_state_dict_is_no_crash():
    source = """
    import torch
    from tools import load_state_dict


    def main(net, path, x):
        load_state_dict(net, path)
        return net(x)
    """
    assert _lines(source, "run.py") == []


def test_a_copy_of_a_callers_model_is_the_callers_to_switch():
    source = """
    import copy
    import torch


    def functional_call(model, weights, data):
        clone = copy.deepcopy(model)
        clone.load_state_dict(weights)
        return clone(*data)
    """
    assert _lines(source, "functional.py") == []


def test_other_ways_of_switching_keep_the_families_quiet():
    by_train_false = CLASSIFIER.replace("            batch = torch.stack", "            self.train(False)\n"
                                                                         "            batch = torch.stack")
    assert _lines(by_train_false, "leaf.py") == []
    by_context = COLLATE.replace("            with torch.no_grad():\n",
                                 "            with torch.no_grad(), eval_mode(self.m0):\n")
    assert _lines("\n    from utils import eval_mode" + by_context, "task.py") == []
    by_decorator = CLASSIFIER.replace("        @torch.no_grad()\n", "        @torch.no_grad()\n        @eval_mode\n")
    assert _lines(by_decorator, "leaf.py") == []
    script = SCRIPT.replace("    image = torch", "    net.train(False)\n    image = torch")
    assert _lines(script, "infer_mask.py") == []


def test_an_inference_wrapper_handed_a_model_is_not_a_labeller():
    wrapper = """
    import torch


    class Wrapper:
        def __init__(self, model, device):
            self.model, self.device = model, device

        def __call__(self, x):
            with torch.no_grad():
                y = self.model(x.to(self.device))
            return y.argmax(-1)

        def run_targets(self, x):
            with torch.no_grad():
                targets = self.model(x.to(self.device)).argmax(-1)
            return targets
    """
    assert _lines(wrapper, "wrapper.py") == []


def test_labels_stored_into_the_objects_collection_are_a_labeller():
    store = COLLATE.replace('collated["y"] = self.m0(collated["X"])', 'self.pseudo_targets[idx] = self.m0(collated["X"])')
    assert _lines(store.replace("def collate_fn(self, batch):", "def collate_fn(self, batch, idx=0):"), "task.py") == [12]


def test_a_frozen_backbone_in_a_linear_probe_is_reported():
    probe = """
    import torch
    import torch.nn.functional as F
    import torchvision


    def linear_probe(head, loader, opt, ckpt):
        backbone = torchvision.models.resnet50()
        backbone.load_state_dict(torch.load(ckpt))
        for x, y in loader:
            with torch.no_grad():
                feats = backbone(x)
            loss = F.cross_entropy(head(feats), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    """
    assert _lines(probe, "probe.py") == [9]
