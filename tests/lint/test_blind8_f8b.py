"""Issue 17, blind split 8 (optimiser and mode rules): where the findings land.

MLD020: a model loaded with trained weights and run in training mode (a function, a predictor class) is reported after the last setup
every run passes (the load), not inside `if use_cuda: model = model.cuda()`, where an eval() would only
run on one device. MLD010: a zero_grad() run once before a loop that steps every pass is reported at that
loop, where the fix moves it. Also MLD020 for a project's own mode setter told "eval" and for a model built with
pretrained weights, MLD053 for another file's numpy transform, and MLD021 for another file's scorer left in eval."""

import textwrap

import pytest

from .families import marked_lines, project_findings, snippet_lines

HEADER = "import torch\nimport torch.nn.functional as F\n"

LOADED = {
    "cuda_branch_after_load": """
        def predict(args, text):
            model = TextCNN(args.classes)
            model.load_state_dict(torch.load(args.weights, weights_only=True))  # MLD020
            x = torch.tensor(encode(text)).unsqueeze(0)
            if torch.cuda.is_available():
                x = x.cuda()
                model = model.cuda()
            return F.softmax(model(x), dim=1)
    """,
    "device_branch_in_a_method": """
        class Predictor:
            def __init__(self, path, gpu):
                self.net = Classifier()
                self.net.load_state_dict(torch.load(path, weights_only=True))  # MLD020
                if gpu:
                    self.net.to("cuda")

            def __call__(self, batch):
                return self.net(batch).argmax(1)
    """,
    "checkpoint_helper_then_device_flag": """
        def main(cfg, images):
            net = build_segmenter(cfg)
            load_checkpoint(net, cfg.checkpoint)  # MLD020
            if cfg.gpu:
                net = net.to("cuda")
                images = images.to("cuda")
            return net(images).argmax(1)
    """,
}

LOADED_QUIET = {
    "switched_after_load": """
        def predict(args, text):
            model = TextCNN(args.classes)
            model.load_state_dict(torch.load(args.weights, weights_only=True))
            model.eval()
            x = torch.tensor(encode(text)).unsqueeze(0)
            if torch.cuda.is_available():
                model = model.cuda()
            return F.softmax(model(x), dim=1)
    """,
}

ONCE_BEFORE = {
    "script_function": """
        def train(model, opt, loader, loss_fn, epochs):
            opt.zero_grad()
            for epoch in range(epochs):
                for i, batch in enumerate(loader):  # MLD010
                    loss = loss_fn(model(batch.x), batch.y)
                    loss.backward()
                    opt.step()
    """,
    "trainer_method": """
        class Trainer:
            def run(self):
                self.optimizer.zero_grad()
                for x, y in self.loader:  # MLD010
                    self.loss_fn(self.model(x), y).backward()
                    clip(self.optimizer)
                    self.optimizer.step()
    """,
}

ONCE_BEFORE_QUIET = {
    "zeroed_each_batch": """
        def train(model, opt, loader, loss_fn):
            opt.zero_grad()
            for x, y in loader:
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
    """,
    "accumulated_on_purpose": """
        def train(model, opt, loader, loss_fn, k):
            opt.zero_grad()
            for i, (x, y) in enumerate(loader):
                (loss_fn(model(x), y) / k).backward()
                if (i + 1) % k == 0:
                    opt.step()
                    opt.zero_grad()
    """,
}


@pytest.mark.parametrize("name", sorted(LOADED))
def test_loaded_model_reported_after_the_setup_every_run_passes(name):
    source = HEADER + textwrap.dedent(LOADED[name])
    assert snippet_lines(source, "MLD020") == marked_lines(source, "MLD020")


@pytest.mark.parametrize("name", sorted(LOADED_QUIET))
def test_loaded_model_switched_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(LOADED_QUIET[name]), "MLD020") == []


@pytest.mark.parametrize("name", sorted(ONCE_BEFORE))
def test_zero_grad_once_before_the_loop_reported_at_the_loop(name):
    source = HEADER + textwrap.dedent(ONCE_BEFORE[name])
    assert snippet_lines(source, "MLD010") == marked_lines(source, "MLD010")


@pytest.mark.parametrize("name", sorted(ONCE_BEFORE_QUIET))
def test_zero_grad_in_the_loop_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(ONCE_BEFORE_QUIET[name]), "MLD010") == []


# MLD020: a trainer's own mode setter told "eval" (`self.set_model_mode("eval")`, `set_mode(model, "test")`)
# switches the models it holds, also for the helpers the evaluation calls several levels down
SETTER_QUIET = {
    "registry_setter_then_nested_helpers": """
        class Engine:
            def set_model_mode(self, mode="train"):
                for name in self._nets:
                    if mode == "train":
                        self._nets[name].train()
                    else:
                        self._nets[name].eval()

            def train(self, loader):
                self.set_model_mode("train")
                for x, y in loader:
                    self.step(x, y)

            def test(self):
                self.set_model_mode("eval")
                return self._evaluate(self.query_loader)

            @torch.no_grad()
            def _evaluate(self, query_loader):
                def _features(loader):
                    feats = []
                    for batch in loader:
                        feats.append(self.embed(batch["img"]).cpu())
                    return torch.cat(feats)
                return _features(query_loader)

            def embed(self, images):
                return self.model(images)
    """,
    "function_setter_with_model_argument": """
        def set_mode(model, mode):
            model.train(mode == "train")

        @torch.no_grad()
        def evaluate(model, val_loader):
            set_mode(model, "test")
            hits = 0
            for x, y in val_loader:
                hits += (model(x).argmax(1) == y).sum().item()
            return hits
    """,
}

SETTER_FIRES = {
    "setter_only_told_train": """
        class Runner:
            def switch_mode(self, mode):
                self.model.train(mode == "train")

            def fit(self, loader):
                self.switch_mode("train")
                for x, y in loader:
                    self.step(x, y)

            @torch.no_grad()
            def validate(self, val_loader):
                correct = 0  # MLD020
                for x, y in val_loader:
                    correct += (self.model(x).argmax(1) == y).sum().item()
                return correct
    """,
}


@pytest.mark.parametrize("name", sorted(SETTER_QUIET))
def test_own_mode_setter_told_eval_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(SETTER_QUIET[name]), "MLD020") == []


@pytest.mark.parametrize("name", sorted(SETTER_FIRES))
def test_own_mode_setter_told_train_still_fires(name):
    source = HEADER + textwrap.dedent(SETTER_FIRES[name])
    assert snippet_lines(source, "MLD020") == marked_lines(source, "MLD020")


# MLD020: a model built with pretrained weights (torchvision/timm, `pretrained=True`, `weights=`) and run by a
# script that trains nothing and switches no mode: reported at the build, where eval() goes
PRETRAINED_FIRES = {
    "zoo_lookup_by_name": """
        from torchvision import models

        def main(args):
            net = models.__dict__[args.arch](pretrained=True).to(args.device)  # MLD020
            image = load_image(args.path)
            scores = net(image.unsqueeze(0))
            return scores.argmax(1).item()
    """,
    "weights_name_in_a_method": """
        import torchvision

        class Explainer:
            def __init__(self, device):
                self.backbone = torchvision.models.resnet50(weights="IMAGENET1K_V2").to(device)  # MLD020

            def top_class(self, image):
                logits = self.backbone(image)
                return logits.argmax(1)
    """,
    "timm_at_module_level": """
        import timm

        model = timm.create_model("vit_small_patch16_224", pretrained=True)  # MLD020
        for path in paths:
            probs = model(read(path)).softmax(-1)
            print(path, probs.max().item())
    """,
}

PRETRAINED_QUIET = {
    "switched": """
        from torchvision import models

        def main(args):
            net = models.resnet18(pretrained=True).eval()
            return net(load_image(args.path)).argmax(1)
    """,
    "shape_self_test": """
        class Net(torch.nn.Module):
            def __init__(self, pretrained=False):
                super().__init__()
                self.drop = torch.nn.Dropout(0.5)

        if __name__ == "__main__":
            net = Net(pretrained=True)
            out = net(torch.rand(1, 3, 16, 112, 112))
            print(out.size())
    """,
    "fine_tuned_here": """
        from torchvision import models

        def main(loader, epochs):
            net = models.resnet18(weights="DEFAULT")
            opt = torch.optim.SGD(net.parameters(), lr=0.01)
            for x, y in loader:
                opt.zero_grad()
                F.cross_entropy(net(x), y).backward()
                opt.step()
    """,
    "no_weights": """
        from torchvision import models

        def main(args):
            net = models.resnet18(weights=None)
            return net(torch.rand(2, 3, 224, 224)).argmax(1)  # not .shape: the shape check would hide weights=None
    """,
}


@pytest.mark.parametrize("name", sorted(PRETRAINED_FIRES))
def test_pretrained_build_run_in_training_mode_fires(name):
    source = HEADER + textwrap.dedent(PRETRAINED_FIRES[name])
    assert snippet_lines(source, "MLD020") == marked_lines(source, "MLD020")


@pytest.mark.parametrize("name", sorted(PRETRAINED_QUIET))
def test_pretrained_build_switched_trained_or_shape_checked_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(PRETRAINED_QUIET[name]), "MLD020") == []


# MLD053 across files: a transform whatever its name draws from np.random's global state (the closure a
# factory returns, a transform class's __call__), handed to a dataset whose training DataLoader runs workers
# without worker_init_fn: flagged at the loader
FACTORY_TRANSFORMS = """
    import numpy as np

    def patch_drop(size, p):
        def _patch_drop(image):
            image = np.asarray(image).copy()
            if np.random.random() > p:
                return image
            y, x = np.random.randint(0, image.shape[0] - size, 2)
            image[y:y + size, x:x + size] = 0
            return image
        return _patch_drop
"""
CALLABLE_TRANSFORM = """
    import numpy as np

    class Jiggle:
        def __init__(self, pixels):
            self.pixels = pixels

        def __call__(self, picture):
            dx = np.random.randint(-self.pixels, self.pixels + 1)
            return np.roll(picture, dx, axis=1)
"""
TORCH_TRANSFORM = FACTORY_TRANSFORMS.replace("np.random.random()", "float(torch.rand(()))").replace(
    "np.random.randint(0, image.shape[0] - size, 2)", "torch.randint(0, image.shape[0] - size, (2,)).tolist()"
).replace("import numpy as np", "import numpy as np\n    import torch")


def _loaders(transform_module: str, transform: str, seeded: bool = False) -> str:
    seed = ", worker_init_fn=seed_worker" if seeded else ""
    return f"""
        import torch
        import torchvision
        import {transform_module}

        def seed_worker(worker_id):
            import numpy as np
            np.random.seed(torch.initial_seed() % 2 ** 32)

        class Data:
            def __init__(self, cfg):
                self.cfg = cfg
                self.train_transform = torchvision.transforms.Compose([{transform}])

            def get_datasets(self):
                return torchvision.datasets.CIFAR10(self.cfg.root, train=True, transform=self.train_transform)

        def get_loader(cfg):
            train_set = Data(cfg).get_datasets()
            train_loader = torch.utils.data.DataLoader(train_set, batch_size=128, shuffle=True,  # MLD053
                                                       num_workers=cfg.workers{seed})
            return train_loader
    """


def _marked(body: str, code: str = "MLD053") -> list[int]:
    return [n for n, line in enumerate(textwrap.dedent(body).splitlines(), 1) if f"# {code}" in line]


@pytest.mark.parametrize("module, body, transform", [
    ("augment_ops", FACTORY_TRANSFORMS, "augment_ops.patch_drop(8, 0.5)"),
    ("jiggle", CALLABLE_TRANSFORM, "jiggle.Jiggle(4)"),
])
def test_unnamed_numpy_transform_in_another_file_fires_at_the_loader(tmp_path, module, body, transform):
    loaders = _loaders(module, transform)
    found = project_findings(tmp_path, {f"{module}.py": body, "data.py": loaders}, "MLD053")
    assert found == [("data.py", line) for line in _marked(loaders)]


@pytest.mark.parametrize("module, body, transform, seeded", [
    ("augment_ops", FACTORY_TRANSFORMS, "augment_ops.patch_drop(8, 0.5)", True),
    ("augment_ops", TORCH_TRANSFORM, "augment_ops.patch_drop(8, 0.5)", False),
])
def test_seeded_workers_or_torch_draws_are_quiet(tmp_path, module, body, transform, seeded):
    loaders = _loaders(module, transform, seeded)
    assert project_findings(tmp_path, {f"{module}.py": body, "data.py": loaders}, "MLD053") == []


# MLD021 across files, in a training file whose text never says eval/valid/test: another file's helper
# (named anything) switches the handed model to eval() and never back, and the loop trains on
SCORER = """
    import torch

    def score_pairs(device, network, pairs):
        network.eval()
        with torch.no_grad():
            return [float(network(a.to(device)) @ network(b.to(device)).T) for a, b in pairs]
"""
SCORER_RESTORING = """
    import torch

    def score_pairs(device, network, pairs):
        network.eval()
        with torch.no_grad():
            out = [float(network(a.to(device)) @ network(b.to(device)).T) for a, b in pairs]
        network.train()
        return out
"""
FIT = """
    import torch
    from tools.scoring import score_pairs

    def fit(network, head, loader, opt, pairs, every):
        network.train()
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()  # MLD021
            loss = torch.nn.functional.cross_entropy(head(network(x)), y)
            loss.backward()
            opt.step()
            if step % every == 0:
                score_pairs("cpu", network, pairs)
"""


def test_another_files_scorer_left_in_eval_fires(tmp_path):
    found = project_findings(tmp_path, {"tools/__init__.py": "", "tools/scoring.py": SCORER, "fit.py": FIT}, "MLD021")
    assert found == [("fit.py", line) for line in _marked(FIT, "MLD021")]


def test_another_files_scorer_that_restores_is_quiet(tmp_path):
    files = {"tools/__init__.py": "", "tools/scoring.py": SCORER_RESTORING, "fit.py": FIT}
    assert project_findings(tmp_path, files, "MLD021") == []
